"""Side by side at representation scale (issue #53): mibound's default, benchmark-mi's InfoNCE and
LMI on the same samples of the scale tasks (`mibound::tasks::SCALE_IDS`), each tool's estimate,
the truth, wall seconds and peak resident memory, against rows and dimensions.

Driven by benches/compare_scale.sh (read it first); two subcommands:

  run     for each task and seed: the sample (`mibound sample ID --n ROWS --seed S`, written once
          into DATA and reused, so a tool run again later sees the same rows; its sha256 is
          recorded), then each tool of --tools in its own process under `/usr/bin/time -v`; one
          record per (task, seed, tool) replaces the earlier one in OUT (a JSON-lines file in the
          format scripts/make-results tabulates: `row` plus provenance, and the raw fields).
  plot    a figure from OUT: wall seconds and peak memory against rows × (dim_x + dim_y), one
          colour per tool.

Timing: `seconds` is the wall time of the process a user runs (interpreter start, imports, data
loading and the estimate: `/usr/bin/time`), `call_seconds` the estimate call alone where the tool
reports it (bmi: `.estimate`; LMI: `lmi.estimate`, peer_estimate.py's `seconds`; mibound: the
headline's `wall_seconds`). `peak_mb` is `/usr/bin/time -v`'s maximum resident set size of the
process (the sample in memory included).
"""
import argparse
import hashlib
import json
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
TOOLS = {
    "mibound": "mibound estimate --x X --y Y --json --quiet --seed S --drop-constant (the default)",
    "bmi-infonce": "bmi.estimators.InfoNCEEstimator(seed=S).estimate(x, y) (benchmark-mi 0.1.3 defaults)",
    "lmi": "peer_estimate.py --peer lmi --threads 1 (latentmi 0.1.3: lmi.estimate defaults)",
}


def scale_tasks(example):
    out = subprocess.run([example, "tasks"], check=True, capture_output=True, text=True).stdout
    return [json.loads(line) for line in out.splitlines() if line.startswith("{")]


def sha(paths):
    h = hashlib.sha256()
    for p in paths:
        with open(p, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                h.update(block)
    return h.hexdigest()[:12]


def timed(cmd, timeout, env):
    """(stdout, wall seconds, peak MB, error) of `cmd` under /usr/bin/time -v."""
    t0 = time.perf_counter()
    try:
        p = subprocess.run(["/usr/bin/time", "-v"] + cmd, capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return None, time.perf_counter() - t0, None, f"timeout after {timeout} s"
    secs = time.perf_counter() - t0
    m = re.search(r"Maximum resident set size \(kbytes\): (\d+)", p.stderr)
    peak = int(m.group(1)) / 1024 if m else None
    if p.returncode != 0:
        tail = p.stderr.split("\tCommand being timed")[0].strip()[-400:]
        return None, secs, peak, f"exit {p.returncode}: {tail}"
    return p.stdout, secs, peak, None


def run_tool(tool, a, xs, ys, seed, env):
    """(value, call seconds, extra, stdout-process result) of one tool on one sample."""
    if tool == "mibound":
        cmd = [a.mibound, "estimate", "--x", xs, "--y", ys, "--json", "--quiet", "--seed", str(seed),
               "--drop-constant"]
    elif tool == "bmi-infonce":
        cmd = [a.bmi_python, os.path.join(HERE, "compare_peers.py"), "bmi", "--x", xs, "--y", ys,
               "--seed", str(seed), "--estimators", "infonce"]
    else:
        cmd = [a.lmi_python, os.path.join(a.peers, "peer_estimate.py"), "--peer", "lmi", "--x", xs, "--y", ys,
               "--seed", str(seed), "--threads", str(a.threads)]
    out, secs, peak, err = timed(cmd, a.timeout, env)
    value, call, extra = None, None, {}
    if out is not None:
        try:
            last = [line for line in out.splitlines() if line.startswith("{")][-1]
            r = json.loads(last)
            if tool == "mibound":
                head = r["estimates"][r.get("headline") or 0]  # the headline the CLI names
                value, call = head["value"], head.get("wall_seconds")
                extra = {"headline": head["estimator"]}
            elif tool == "bmi-infonce":
                value, call, err = r["value"], r["seconds"], r["error"]
            else:
                value, call, err = r["value_nats"], r["seconds"], r["error"]
        except (IndexError, KeyError, ValueError) as e:
            err = f"unreadable output ({type(e).__name__}): {out[-300:]}"
    return value, call, secs, peak, err, extra


def load(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def save(path, recs, order):
    """Writes the records sorted by task order, seed and tool order (a re-run replaces), each
    with its table row and provenance made from its raw fields."""
    tools = list(TOOLS)
    for r in recs:
        if "load" not in r:  # the first records carried the load inside `source`
            m = re.search(r", load ([0-9.]+) at the start", r.get("source", ""))
            r["load"] = float(m.group(1)) if m else None
        r["row"] = row(r)
        r["run"] = f"{TOOLS[r['tool']]}; {r['threads']} thread(s), seed {r['seed']}"
        r["source"] = "benches/compare_scale.py (/usr/bin/time -v around each process)"
    recs.sort(key=lambda r: (order.get(r["task"], 99), r["seed"], tools.index(r["tool"])))
    with open(path + ".tmp", "w") as f:
        for r in recs:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    os.replace(path + ".tmp", path)


def fmt(v, nd):
    return "—" if v is None else f"{v:.{nd}f}"


def row(rec):
    return {"task": f"`{rec['task']}`", "half": rec["split"], "rows": f"{rec['n']:,}",
            "dims": f"{rec['dx']}+{rec['dy']}", "truth": fmt(rec["truth"], 3), "tool": rec["tool"],
            "estimate": fmt(rec["value"], 3) if not rec["error"] else f"— ({rec['error'][:60]})",
            "seconds": fmt(rec["seconds"], 1), "call s": fmt(rec["call_seconds"], 1),
            "peak MB": fmt(rec["peak_mb"], 0)}


def cmd_run(a):
    tasks = scale_tasks(a.example)
    order = {t["task"]: k for k, t in enumerate(tasks)}
    wanted = [t for t in tasks if (a.tasks == "all" or t["task"] in a.tasks.split(",")) and
              (a.half == "all" or t["split"] == a.half)]
    unknown = [t for t in a.tasks.split(",") if a.tasks != "all" and t not in order]
    if unknown:
        sys.exit(f"compare_scale: unknown scale task(s) {unknown}; see `{a.example} tasks`")
    tools = [t for t in a.tools.split(",") if t]
    bad = [t for t in tools if t not in TOOLS]
    if bad:
        sys.exit(f"compare_scale: unknown tool(s) {bad}; known: {', '.join(TOOLS)}")
    env = dict(os.environ)
    for var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "RAYON_NUM_THREADS"):
        env[var] = str(a.threads)
    env["JAX_PLATFORMS"] = "cpu"
    env["XLA_FLAGS"] = "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1" if a.threads == 1 else ""
    commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    for seed in [int(s) for s in a.seeds.split(",")]:
        for t in wanted:
            d = os.path.join(a.data, f"{t['task']}-s{seed}")
            xs, ys = os.path.join(d, "x.npy"), os.path.join(d, "y.npy")
            if not (os.path.exists(xs) and os.path.exists(ys)):
                subprocess.run([a.mibound, "sample", t["task"], "--n", str(t["n"]), "--seed", str(seed), "--out", d],
                               check=True, capture_output=True)
            digest = sha([xs, ys])
            for tool in tools:
                with open("/proc/loadavg") as f:
                    load_start = float(f.read().split()[0])
                if tool != "mibound" and t["n"] > a.peer_max_rows:
                    print(f"  {t['task']} s{seed} {tool}: skipped ({t['n']} rows > PEER_MAX_ROWS {a.peer_max_rows})",
                          flush=True)
                    continue
                value, call, secs, peak, err, extra = run_tool(tool, a, xs, ys, seed, env)
                rec = {"task": t["task"], "seed": seed, "tool": tool, "split": t["split"], "n": t["n"],
                       "dx": t["dx"], "dy": t["dy"], "truth": t["truth"], "value": value, "seconds": secs,
                       "call_seconds": call, "peak_mb": peak, "error": err, "threads": a.threads,
                       "sample_sha256": digest, **extra}
                rec.update(command=a.command, date=time.strftime("%Y-%m-%d", time.gmtime()), commit=commit,
                           load=load_start)
                recs = [r for r in load(a.out) if (r["task"], r["seed"], r["tool"]) != (t["task"], seed, tool)]
                save(a.out, recs + [rec], order)
                v = "—" if value is None else f"{value:.3f}"
                print(f"  {t['task']} s{seed} {tool:12s} {v:>7s} (truth {t['truth']:.3f}) {secs:7.1f} s "
                      f"{fmt(peak, 0):>6s} MB" + (f"  ERROR {err}" if err else ""), flush=True)


def cmd_plot(a):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    recs = [r for r in load(a.out) if r["value"] is not None]
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    markers = {"mibound": "o", "bmi-infonce": "s", "lmi": "^"}
    for tool in TOOLS:
        rs = [r for r in recs if r["tool"] == tool]
        if not rs:
            continue
        size = [r["n"] * (r["dx"] + r["dy"]) for r in rs]
        for ax, key in zip(axes, ["seconds", "peak_mb"]):
            ax.scatter(size, [r[key] for r in rs], marker=markers[tool], label=tool, alpha=0.8)
    for ax, label in zip(axes, ["wall seconds (process)", "peak resident memory (MB)"]):
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("rows × (dim_x + dim_y)")
        ax.set_ylabel(label)
        ax.grid(True, which="both", alpha=0.3)
    axes[0].legend()
    fig.suptitle("Representation scale: the scale tasks' samples, one thread per tool (docs/runs/scale.jsonl)")
    fig.tight_layout()
    fig.savefig(a.png, dpi=110)
    print(f"compare_scale: wrote {a.png} ({len(recs)} estimates)")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("--mibound", required=True)
    r.add_argument("--example", required=True, help="target/release/examples/scale (its `tasks` lists the tasks)")
    r.add_argument("--tasks", default="all")
    r.add_argument("--half", default="all", choices=["all", "tuning", "held-out"])
    r.add_argument("--seeds", default="0")
    r.add_argument("--tools", default=",".join(TOOLS))
    r.add_argument("--data", required=True)
    r.add_argument("--out", required=True)
    r.add_argument("--bmi-python", required=True)
    r.add_argument("--lmi-python", default=sys.executable)
    r.add_argument("--peers", required=True)
    r.add_argument("--threads", type=int, default=1)
    r.add_argument("--timeout", type=int, default=3600)
    r.add_argument("--peer-max-rows", type=int, default=20000)
    r.add_argument("--command", default="benches/compare_scale.sh")
    pl = sub.add_parser("plot")
    pl.add_argument("--out", required=True)
    pl.add_argument("--png", required=True)
    a = p.parse_args()
    {"run": cmd_run, "plot": cmd_plot}[a.cmd](a)


if __name__ == "__main__":
    main()
