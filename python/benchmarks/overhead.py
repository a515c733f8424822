"""What calling mibound through Python costs, two ways, on a 5000-sample estimate:

1. alternating runs of the same estimate timed from Python (`mibound.estimate`, from the numpy
   arrays to the result object) and from Rust (the same `compare` call in a Rust program,
   python/examples/overhead.rs); medians and their ratio. On a loaded machine the run-to-run
   spread of either side is larger than the overhead, so also:
2. within each Python call, its time minus the library's `compare` time inside it
   (`_native._last_compare_seconds`): what the bindings add (array conversion, the worker
   thread, the result's conversion to Python objects), measured on the same run.

    python python/benchmarks/overhead.py [--repeats 7] [--steps 3000]

Run by scripts/python-overhead, which builds both sides first.
"""

import argparse
import json
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

import mibound


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--rust", required=True, help="the overhead example binary")
    p.add_argument("--repeats", type=int, default=7)
    p.add_argument("--steps", type=int, default=3000, help="training steps of the neural estimate")
    p.add_argument("--n", type=int, default=5000)
    p.add_argument("--estimators", default="infonce;ksg", help="runs, separated by ';'")
    a = p.parse_args()
    x, y = mibound.sample("gaussian", a.n, 0, dim=20, mi=2.0)
    tmp = pathlib.Path(tempfile.mkdtemp())
    np.save(tmp / "x.npy", x)
    np.save(tmp / "y.npy", y)
    print(f"{a.n} samples of a 20-d Gaussian with 2 nats; {a.repeats} alternating repeats; steps {a.steps}")
    print("| estimators | Rust median (s) | Python median (s) | Python / Rust | added by Python, median (ms) | added / compare | runs (Rust; Python) |")
    print("|---|---|---|---|---|---|---|")
    for est in a.estimators.split(";"):
        rust, py, added, inner = [], [], [], []
        for _ in range(a.repeats):
            out = subprocess.run(
                [a.rust, str(tmp / "x.npy"), str(tmp / "y.npy"), est, "0", str(a.steps)],
                check=True, capture_output=True, text=True,
            ).stdout
            r = json.loads(out)
            rust.append(r["seconds"])
            started = time.perf_counter()
            c = mibound.estimate(x, y, estimators=est, seed=0, steps=a.steps)
            py.append(time.perf_counter() - started)
            inner.append(mibound._native._last_compare_seconds())
            added.append(py[-1] - inner[-1])
            # The same numbers, or the comparison is meaningless.
            assert [e.value for e in c.estimates] == r["values"], (r["values"], c)
        rm, pm = statistics.median(rust), statistics.median(py)
        fmt = lambda v: ", ".join(f"{t:.3f}" for t in v)
        am = statistics.median(added)
        share = statistics.median(a_ / i_ for a_, i_ in zip(added, inner))
        print(f"| {est} | {rm:.3f} | {pm:.3f} | {pm / rm:.4f} | {am * 1e3:.2f} | {share * 100:.3f} % | {fmt(rust)}; {fmt(py)} |")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
