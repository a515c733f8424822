"""Side by side, in one run, on the same samples: mibound's default estimate and its KSG against
torch-mist's `estimate_mi` default and benchmark-mi's neural estimators with their defaults.

Driven by benches/compare_peers.sh (read it first); three subcommands:

  run     for each task and seed: `mibound sample` (n rows, the task's exact or Monte Carlo truth in
          info.json), then on that same x.npy / y.npy every estimator; one JSON line per
          (task, seed, estimator) appended to OUT/results.jsonl.
  bmi     (internal, run by `run` in a fresh process) benchmark-mi's InfoNCE / NWJ / DV / MINE
          estimators with their defaults on X.npy / Y.npy; one JSON line per estimator; the time is
          that of the `.estimate(x, y)` call only (JAX's compilation included, as a user pays it).
  report  markdown table (per task; then mean absolute error and mean wall time per half and per
          group) and a figure of mean absolute error against mean wall time, from results.jsonl.

Timing: mibound's two calls are timed around the process (parsing, the interval and the
permutation test included: the call a user makes); torch-mist's time is the `estimate_mi` call as
peer_estimate.py measures it; bmi's the `.estimate` call. Every process gets the same 2 threads.
"""
import argparse
import json
import math
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))

# The estimators compared, in table order: key -> (table label, what was called).
ESTIMATORS = {
    "mibound-default": ("mibound default (headline)", "mibound estimate --json --quiet --seed S --drop-constant"),
    "mibound-default-ksg": ("KSG inside mibound default", "the KSG estimate of the same call (no own wall time)"),
    "mibound-ksg": ("mibound KSG", "mibound estimate --estimators ksg --json --quiet --seed S --drop-constant"),
    "torch-mist": ("torch-mist default", "torch_mist.estimate_mi(data=(x, y)) (SMILE, all defaults)"),
    "bmi-infonce": ("bmi InfoNCE", "bmi.estimators.InfoNCEEstimator(seed=S).estimate(x, y)"),
    "bmi-nwj": ("bmi NWJ", "bmi.estimators.NWJEstimator(seed=S).estimate(x, y)"),
    "bmi-dv": ("bmi DV", "bmi.estimators.DonskerVaradhanEstimator(seed=S).estimate(x, y)"),
    "bmi-mine": ("bmi MINE", "bmi.estimators.MINEEstimator(seed=S).estimate(x, y)"),
}
BMI_CLASSES = {"infonce": "InfoNCEEstimator", "nwj": "NWJEstimator", "dv": "DonskerVaradhanEstimator",
               "mine": "MINEEstimator"}


# --------------------------------------------------------------------------- bmi runner
def cmd_bmi(a):
    os.environ["JAX_PLATFORMS"] = "cpu"
    os.environ.setdefault("CUDA_VISIBLE_DEVICES", "")
    import numpy as np
    import bmi.estimators as be

    x = np.load(a.x).astype(np.float64)
    y = np.load(a.y).astype(np.float64)
    x = x.reshape(len(x), -1)
    y = y.reshape(len(y), -1)
    for name in a.estimators.split(","):
        rec = {"estimator": "bmi-" + name, "value": None, "seconds": None, "error": None}
        try:
            # the defaults of benchmark-mi 0.1.3, except the seed (ours) and the progress printing
            est = getattr(be, BMI_CLASSES[name])(seed=a.seed, verbose=False)
            t0 = time.perf_counter()
            v = float(est.estimate(x, y))
            rec["seconds"] = time.perf_counter() - t0
            rec["value"] = v if math.isfinite(v) else None
            if not math.isfinite(v):
                rec["error"] = f"non-finite estimate {v}"
        except Exception as e:  # recorded, the run goes on
            rec["error"] = f"{type(e).__name__}: {e}"
        print(json.dumps(rec), flush=True)


# --------------------------------------------------------------------------- orchestration
def task_table(mibound):
    """id -> (dim_x, dim_y, truth, split, group), parsed from `mibound tasks`."""
    out = subprocess.run([mibound, "tasks"], check=True, capture_output=True, text=True).stdout
    rows, seen_header = {}, False
    for line in out.splitlines():
        parts = line.split()
        if parts[:1] == ["id"]:
            seen_header = True
            continue
        if seen_header and len(parts) >= 7 and parts[1].isdigit() and parts[2].isdigit():
            rows[parts[0]] = (int(parts[1]), int(parts[2]), float(parts[3]), parts[5], parts[6])
    return rows


def timed(cmd, timeout, env=None):
    t0 = time.perf_counter()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return None, time.perf_counter() - t0, f"timeout after {timeout} s"
    secs = time.perf_counter() - t0
    if p.returncode != 0:
        return None, secs, f"exit {p.returncode}: {p.stderr.strip()[-400:]}"
    return p.stdout, secs, None


def cmd_run(a):
    tasks = task_table(a.mibound)
    ids = a.tasks.split(",")
    unknown = [t for t in ids if t not in tasks]
    if unknown:
        sys.exit(f"compare_peers: unknown task id(s) {unknown}; see `{a.mibound} tasks`")
    os.makedirs(a.out, exist_ok=True)
    results = os.path.join(a.out, "results.jsonl")
    env = dict(os.environ)
    for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        env[var] = str(a.threads)
    env["JAX_PLATFORMS"] = "cpu"
    bmi_list = [b for b in a.bmi.split(",") if b]
    with open(results, "a") as fh:
        for seed in [int(s) for s in a.seeds.split(",")]:
            for tid in ids:
                dx, dy, _, split, group = tasks[tid]
                d = os.path.join(a.out, "data", f"{tid}-s{seed}")
                subprocess.run([a.mibound, "sample", tid, "--n", str(a.n), "--seed", str(seed), "--out", d],
                               check=True, capture_output=True)
                with open(os.path.join(d, "info.json")) as f:
                    truth = json.load(f)["true_mi"]
                xs, ys = os.path.join(d, "x.npy"), os.path.join(d, "y.npy")
                base = {"task": tid, "seed": seed, "n": a.n, "dx": dx, "dy": dy, "split": split,
                        "group": group, "truth": truth}

                def emit(est, value, seconds, error=None, **extra):
                    rec = dict(base, estimator=est, value=value, seconds=seconds, error=error, **extra)
                    if value is not None:
                        rec["abs_error"] = abs(value - truth)
                    fh.write(json.dumps(rec) + "\n")
                    fh.flush()
                    v = "—" if value is None else f"{value:.4f}"
                    s = "—" if seconds is None else f"{seconds:.1f} s"
                    print(f"  {tid} s{seed} {est:22s} {v:>8s} (truth {truth:.4f}) {s}"
                          + (f"  ERROR {error}" if error else ""), flush=True)

                # --drop-constant: the digit images have always-blank pixels, which mibound refuses
                # without it (the peers take them as they are); a no-op on the other tasks
                est_args = ["estimate", "--x", xs, "--y", ys, "--json", "--quiet", "--seed", str(seed),
                            "--drop-constant"]
                # 1. mibound's default: the headline and the KSG cross-check of the same call
                out, secs, err = timed([a.mibound] + est_args, a.timeout, env)
                if err:
                    emit("mibound-default", None, secs, err)
                else:
                    ests = json.loads(out)["estimates"]
                    head = ests[0]
                    emit("mibound-default", head["value"], secs, headline=head["estimator"],
                         estimators=[e["estimator"] for e in ests])
                    ksg = [e for e in ests if e["estimator"].startswith("ksg")]
                    if ksg:
                        emit("mibound-default-ksg", ksg[0]["value"], None, internal_seconds=ksg[0].get("wall_seconds"),
                             label=ksg[0]["estimator"])
                    else:
                        emit("mibound-default-ksg", None, None, "no ksg estimate in the default call")
                # 2. KSG alone, as a user calls it
                out, secs, err = timed([a.mibound] + est_args + ["--estimators", "ksg"], a.timeout, env)
                emit("mibound-ksg", None if err else json.loads(out)["estimates"][0]["value"], secs, err)
                if a.no_peers:
                    continue
                # 3. torch-mist's default
                out, secs, err = (None, None, None) if a.no_torch_mist else timed([a.python, os.path.join(a.peers, "peer_estimate.py"), "--peer", "torch-mist",
                                        "--x", xs, "--y", ys, "--seed", str(seed), "--threads", str(a.threads)],
                                       a.timeout, env)
                if a.no_torch_mist:
                    pass
                elif err:
                    emit("torch-mist", None, None, err)
                else:
                    r = json.loads(out.strip().splitlines()[-1])
                    emit("torch-mist", r.get("value_nats"), r.get("seconds"), r.get("error"),
                         process_seconds=secs)
                # 4. benchmark-mi's neural estimators, one fresh process (as a user's script)
                if bmi_list:
                    out, secs, err = timed([a.python, os.path.abspath(__file__), "bmi", "--x", xs, "--y", ys,
                                            "--seed", str(seed), "--estimators", ",".join(bmi_list)],
                                           a.timeout * len(bmi_list), env)
                    got = set()
                    for line in (out or "").splitlines():
                        if line.startswith("{"):
                            r = json.loads(line)
                            got.add(r["estimator"])
                            emit(r["estimator"], r["value"], r["seconds"], r["error"])
                    for b in bmi_list:
                        if "bmi-" + b not in got:
                            emit("bmi-" + b, None, None, err or "no output")


# --------------------------------------------------------------------------- report
def fmt(v, nd=3):
    return "—" if v is None else f"{v:.{nd}f}"


def read_results(paths):
    """The records of results.jsonl files; later files replace earlier ones' (task, seed,
    estimator) records: e.g. mibound's rows re-measured with PEERS=0 on the same samples."""
    latest = {}
    for path in paths:
        for line in open(path):
            if line.strip():
                r = json.loads(line)
                latest[(r["task"], r["seed"], r["estimator"])] = r
    return list(latest.values())


def cmd_report(a):
    recs = read_results(a.results)
    text = report_markdown(recs)
    with open(a.md, "w") as f:
        f.write(text)
    print(text)
    if a.png:
        report_png(recs, a.png)
        print(f"wrote {a.md} and {a.png}")


def report_markdown(recs):
    """The per-task table and the mean absolute error / mean wall time per half, group and both
    (scripts/make-results writes docs/peers.md's tables with it)."""
    present = [e for e in ESTIMATORS if any(r["estimator"] == e for r in recs)]
    label = {e: ESTIMATORS[e][0] for e in present}
    by = {}
    for r in recs:
        by.setdefault((r["task"], r["seed"]), {})[r["estimator"]] = r
    tasks = []
    for r in recs:
        if r["task"] not in tasks:
            tasks.append(r["task"])
    info = {r["task"]: r for r in recs}
    seeds = sorted({r["seed"] for r in recs})
    L = []
    L.append(f"Samples: n = {recs[0]['n']} rows per task, seed(s) {', '.join(map(str, seeds))}. "
             "Cells: value (|error|) seconds; — = failed or not run.")
    L.append("")
    L.append("| task | split | group | dx×dy | seed | truth | headline is | " + " | ".join(label[e] for e in present) + " |")
    L.append("|---|---|---|---|---|---|---|" + "---|" * len(present))
    order = sorted(tasks, key=lambda t: (info[t]["split"] != "tuning", info[t]["group"], t))
    for t in order:
        for s in seeds:
            row = by.get((t, s))
            if not row:
                continue
            i = info[t]
            cells = []
            for e in present:
                r = row.get(e)
                if r is None or r["value"] is None:
                    cells.append("—")
                else:
                    sec = "" if r["seconds"] is None else f" {r['seconds']:.1f} s"
                    cells.append(f"{r['value']:.3f} ({r['abs_error']:.3f}){sec}")
            head = row.get("mibound-default", {}).get("headline") or "—"
            L.append(f"| {t} | {i['split']} | {i['group']} | {i['dx']}×{i['dy']} | {s} | {i['truth']:.3f} | {head} | "
                     + " | ".join(cells) + " |")
    L.append("")

    def summary(title, pred):
        L.append(f"**{title}**: mean absolute error / mean wall seconds (tasks with a value)")
        L.append("")
        L.append("| subset | rows | " + " | ".join(label[e] for e in present) + " |")
        L.append("|---|---|" + "---|" * len(present))
        subsets = []
        for key, sel in pred:
            rows = [k for k in by if sel(info[k[0]])]
            if not rows:
                continue
            cells = []
            for e in present:
                rs = [by[k][e] for k in rows if e in by[k] and by[k][e]["value"] is not None]
                if not rs:
                    cells.append("—")
                    continue
                mae = sum(r["abs_error"] for r in rs) / len(rs)
                ts = [r["seconds"] for r in rs if r["seconds"] is not None]
                miss = f" [{len(rs)}/{len(rows)}]" if len(rs) < len(rows) else ""
                cells.append(f"{mae:.3f} / " + (f"{sum(ts) / len(ts):.1f} s" if ts else "—") + miss)
            L.append(f"| {key} | {len(rows)} | " + " | ".join(cells) + " |")
            subsets.append(key)
        L.append("")

    groups = sorted({i["group"] for i in info.values()})
    halves = ["tuning", "held-out"]
    summary("Per half", [("all", lambda i: True)] + [(h, (lambda h: lambda i: i["split"] == h)(h)) for h in halves])
    summary("Per group", [(g, (lambda g: lambda i: i["group"] == g)(g)) for g in groups])
    summary("Per half and group", [(f"{h} / {g}", (lambda h, g: lambda i: i["split"] == h and i["group"] == g)(h, g))
                                   for h in halves for g in groups])
    L.append("Estimators: " + "; ".join(f"{label[e]} = `{ESTIMATORS[e][1]}`" for e in present) + ".")
    return "\n".join(L) + "\n"


def report_png(recs, png):
    """Mean absolute error against mean wall time per estimator (matplotlib)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    present = [e for e in ESTIMATORS if any(r["estimator"] == e for r in recs)]
    label = {e: ESTIMATORS[e][0] for e in present}
    by = {}
    for r in recs:
        by.setdefault((r["task"], r["seed"]), {})[r["estimator"]] = r
    # the KSG inside the default call has no wall time of its own: not plotted
    timed_ests = [e for e in present if any(r["estimator"] == e and r["seconds"] is not None for r in recs)]

    def ok(r):
        return r is not None and r["value"] is not None and r["seconds"] is not None

    # only (task, seed) rows where every plotted estimator gave a value and a time
    common = [k for k in by if all(ok(by[k].get(e)) for e in timed_ests)]
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for e in timed_ests:
        rs = [by[k][e] for k in common]
        if not rs:
            continue
        mae = sum(r["abs_error"] for r in rs) / len(rs)
        sec = sum(r["seconds"] for r in rs) / len(rs)
        ax.scatter([sec], [mae], s=40)
        ax.annotate(label[e], (sec, mae), textcoords="offset points", xytext=(5, 4), fontsize=8)
    ax.set_xscale("log")
    ax.set_xlabel("mean wall time per estimate (s, log scale)")
    ax.set_ylabel("mean absolute error (nats)")
    ax.set_title(f"{len(common)} of {len(by)} (task, seed) samples where every estimator ran, "
                 f"n = {recs[0]['n']}", fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    fig.savefig(png, dpi=120)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("--mibound", required=True)
    r.add_argument("--tasks", required=True, help="comma-separated task ids of `mibound tasks`")
    r.add_argument("--seeds", default="0")
    r.add_argument("--n", type=int, default=5000)
    r.add_argument("--out", required=True)
    r.add_argument("--python", default=sys.executable, help="the peers' venv Python")
    r.add_argument("--peers", required=True, help="folder holding peer_estimate.py")
    r.add_argument("--bmi", default="infonce,nwj,dv,mine", help="bmi estimators (comma-separated, may be empty)")
    r.add_argument("--threads", type=int, default=2)
    r.add_argument("--timeout", type=int, default=900, help="seconds per call")
    r.add_argument("--no-peers", action="store_true", help="mibound's two calls only")
    r.add_argument("--no-torch-mist", action="store_true", help="leave torch-mist out (bmi only)")
    b = sub.add_parser("bmi")
    b.add_argument("--x", required=True)
    b.add_argument("--y", required=True)
    b.add_argument("--seed", type=int, required=True)
    b.add_argument("--estimators", default="infonce,nwj,dv,mine")
    q = sub.add_parser("report")
    q.add_argument("results", nargs="+", help="results.jsonl files; a later one's records replace an earlier one's")
    q.add_argument("--md", required=True)
    q.add_argument("--png", default=None)
    a = p.parse_args()
    {"run": cmd_run, "bmi": cmd_bmi, "report": cmd_report}[a.cmd](a)


if __name__ == "__main__":
    main()
