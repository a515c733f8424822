"""Draws docs/figures/ksg_scaling.svg from the Markdown printed by benches/compare_classical.sh
(no dependencies beyond the standard library).

  benches/compare_classical.sh > out.md && python3 benches/compare_classical_plot.py out.md docs/figures/ksg_scaling.svg
"""
import math
import sys

rows = [l.strip().strip("|").split("|") for l in open(sys.argv[1]) if l.startswith("|")]
rows = [[c.strip() for c in r] for r in rows if r and r[0].strip() and not r[0].strip().startswith("---")]
series = {}


def add(name, n, s):
    try:
        series.setdefault(name, []).append((float(n), float(s)))
    except ValueError:
        pass


for r in rows:
    if len(r) == 9 and r[3].startswith("sklearn"):
        add("scikit-learn mutual_info_regression, 1×1, k=3", r[1], r[4])
    elif len(r) == 9 and r[3].startswith("bmi"):
        add("bmi KSG, 5×5, k=5", r[1], r[4])
    elif len(r) == 5 and "×" in r[0]:
        add(f"mibound KSG, {r[0]}, 1 thread", r[1], r[2])
        add(f"mibound KSG, {r[0]}, 2 threads", r[1], r[3])

W, H, L, R, T, B = 860, 440, 70, 400, 30, 50
xs = [n for v in series.values() for n, _ in v]
ys = [s for v in series.values() for _, s in v]
x0, x1 = math.floor(math.log10(min(xs))), math.ceil(math.log10(max(xs)))
y0, y1 = math.floor(math.log10(min(ys))), math.ceil(math.log10(max(ys)))
px = lambda n: L + (math.log10(n) - x0) / (x1 - x0) * (W - L - R)
py = lambda s: H - B - (math.log10(s) - y0) / (y1 - y0) * (H - T - B)
out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" font-family="DejaVu Sans, sans-serif" font-size="12">',
       f'<rect width="{W}" height="{H}" fill="white"/>']
for e in range(x0, x1 + 1):
    out.append(f'<line x1="{px(10**e):.1f}" y1="{T}" x2="{px(10**e):.1f}" y2="{H-B}" stroke="#ddd"/>')
    out.append(f'<text x="{px(10**e):.1f}" y="{H-B+16}" text-anchor="middle">1e{e}</text>')
for e in range(y0, y1 + 1):
    out.append(f'<line x1="{L}" y1="{py(10**e):.1f}" x2="{W-R}" y2="{py(10**e):.1f}" stroke="#ddd"/>')
    out.append(f'<text x="{L-6}" y="{py(10**e)+4:.1f}" text-anchor="end">1e{e} s</text>')
out.append(f'<text x="{(L+W-R)/2}" y="{H-10}" text-anchor="middle">n (rows)</text>')
out.append(f'<text x="{L}" y="{T-10}">KSG wall time against n (log–log), this project\'s 2-core machine</text>')
colours = ["#1f77b4", "#6baed6", "#d62728", "#ff9896", "#2ca02c", "#9467bd"]
for i, (name, pts) in enumerate(sorted(series.items())):
    pts.sort()
    c = colours[i % len(colours)]
    dash = ' stroke-dasharray="5,3"' if "2 threads" in name else ""
    path = " ".join(f"{px(n):.1f},{py(s):.1f}" for n, s in pts)
    out.append(f'<polyline points="{path}" fill="none" stroke="{c}" stroke-width="2"{dash}/>')
    for n, s in pts:
        out.append(f'<circle cx="{px(n):.1f}" cy="{py(s):.1f}" r="3" fill="{c}"/>')
    ly = T + 10 + 18 * i
    out.append(f'<line x1="{W-R+10}" y1="{ly}" x2="{W-R+34}" y2="{ly}" stroke="{c}" stroke-width="2"{dash}/>')
    out.append(f'<text x="{W-R+40}" y="{ly+4}">{name}</text>')
out.append("</svg>")
open(sys.argv[2], "w").write("\n".join(out) + "\n")
