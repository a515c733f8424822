"""Per-feature MI side by side in one run: scikit-learn's mutual_info_regression and
mutual_info_classif against mibound's feature_mi (benches/features.rs) on the same data,
100 features x 10 000 rows, a continuous and a class target; prints a markdown table with the
ratios and the largest difference between the two answers.

  MIBOUND_PYTHON=/tmp/ds-venv/bin/python benches/compare_features.sh [--quick]

Data (seed 0): X ~ N(0, I_100); y = sum_{j<10} sin(2 X_j) / j+1 + X_10 X_11 + 0.5 N(0, 1);
the class target is y cut at its terciles (0, 1, 2). scikit-learn adds 1e-10-relative noise
from np.random.RandomState(random_state): X's draws, then y's. The same draws are handed to
mibound (TieNoise::Given), so both run the same algorithm on the same numbers; the last
column says how far apart the answers are.

When the Python package is installed in the same interpreter (scripts/python-tests' wheel, or
`maturin develop --release` in python/), the call a Python user makes,
mibound.mutual_info_regression / mutual_info_classif(X, y, n_neighbors=3, random_state=0,
discrete_features=False), is timed in this process beside scikit-learn's (numpy's noise draws
and the array hand-over included; all cores).
"""
import argparse
import json
import os
import subprocess
import tempfile
import time

for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(var, "1")

import numpy as np  # noqa: E402
from sklearn.feature_selection import mutual_info_classif, mutual_info_regression  # noqa: E402

try:
    import mibound  # noqa: E402
except ImportError:
    mibound = None

p = argparse.ArgumentParser()
p.add_argument("--n", type=int, default=10000)
p.add_argument("--p", type=int, default=100)
p.add_argument("--reps", type=int, default=3)
a = p.parse_args()

rng = np.random.default_rng(0)
X = rng.standard_normal((a.n, a.p))
y = sum(np.sin(2 * X[:, j]) / (j + 1) for j in range(10)) + X[:, 10] * X[:, 11] + 0.5 * rng.standard_normal(a.n)
cls = np.digitize(y, np.quantile(y, [1 / 3, 2 / 3])).astype(float)

tmp = tempfile.mkdtemp()
X.astype("<f8").tofile(f"{tmp}/x.bin")
y.astype("<f8").tofile(f"{tmp}/y.bin")
cls.astype("<f8").tofile(f"{tmp}/cls.bin")
draws = np.random.RandomState(0)  # what random_state=0 gives scikit-learn
draws.standard_normal((a.n, a.p)).astype("<f8").tofile(f"{tmp}/ex.bin")
draws.standard_normal(a.n).astype("<f8").tofile(f"{tmp}/ey.bin")


def best_of(f):
    best, out = float("inf"), None
    for _ in range(a.reps):
        t = time.perf_counter()
        out = f()
        best = min(best, time.perf_counter() - t)
    return best, out


def ours(target, threads, discrete):
    cmd = ["cargo", "bench", "-q", "--bench", "features", "--", "--x", f"{tmp}/x.bin", "--y", f"{tmp}/{target}.bin",
           "--n", str(a.n), "--p", str(a.p), "--k", "3", "--threads", str(threads), "--reps", str(a.reps)]
    cmd += ["--noise-x", f"{tmp}/ex.bin"]
    cmd += ["--discrete-y"] if discrete else ["--noise-y", f"{tmp}/ey.bin"]
    r = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout.strip().splitlines()[-1])
    return r["seconds"], np.array(r["values"])


print(f"## Per-feature MI, {a.p} features x {a.n} rows, n_neighbors = 3 (seconds, best of {a.reps}; ratio = scikit-learn / mibound)")
print()
py_cols = " mibound Python s | ratio | max abs difference |" if mibound else ""
print("| target | scikit-learn call | scikit-learn s | mibound 1 thread s | ratio | mibound 2 threads s | ratio | max abs difference |" + py_cols)
print("|---|---|---|---|---|---|---|---|" + ("---|---|---|" if mibound else ""))
for target, discrete, name, fn, t in [
    ("y", False, "mutual_info_regression(X, y, n_neighbors=3, random_state=0)", mutual_info_regression, y),
    ("cls", True, "mutual_info_classif(X, c, n_neighbors=3, random_state=0)", mutual_info_classif, cls),
]:
    s_sk, v_sk = best_of(lambda: fn(X, t, n_neighbors=3, random_state=0))
    s1, v1 = ours(target, 1, discrete)
    s2, v2 = ours(target, 2, discrete)
    diff = float(np.max(np.abs(v_sk - v2)))
    assert np.array_equal(v1, v2), "1 and 2 threads differ"
    extra = ""
    if mibound:
        ours_py = mibound.mutual_info_classif if discrete else mibound.mutual_info_regression
        s_py, v_py = best_of(lambda: ours_py(X, t, n_neighbors=3, random_state=0, discrete_features=False))
        extra = f" {s_py:.3f} | {s_sk / s_py:.1f}x | {float(np.max(np.abs(v_sk - v_py))):.1e} |"
    print(f"| {'class (3)' if discrete else 'continuous'} | `{name}` | {s_sk:.3f} | {s1:.3f} | {s_sk / s1:.1f}x | {s2:.3f} | {s_sk / s2:.1f}x | {diff:.1e} |" + extra)
