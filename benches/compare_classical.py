"""Times scikit-learn's mutual_info_regression or bmi's KSG on the same kind of data as
benches/ksg.rs (correlated Gaussian, rho = 0.6), best of --reps; prints one JSON line.

  python compare_classical.py sklearn --n 100000 --k 3
  python compare_classical.py bmi --n 5000 --dx 5 --dy 5 --k 5
"""
import argparse
import json
import os
import time

for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(var, "1")

import numpy as np  # noqa: E402

p = argparse.ArgumentParser()
p.add_argument("which", choices=["sklearn", "bmi"])
p.add_argument("--n", type=int, default=100000)
p.add_argument("--dx", type=int, default=1)
p.add_argument("--dy", type=int, default=1)
p.add_argument("--k", type=int, default=3)
p.add_argument("--reps", type=int, default=3)
a = p.parse_args()

rng = np.random.default_rng(0)
rho = 0.6
x = rng.standard_normal((a.n, a.dx))
y = rng.standard_normal((a.n, a.dy))
m = min(a.dx, a.dy)
y[:, :m] = rho * x[:, :m] + np.sqrt(1 - rho * rho) * y[:, :m]

if a.which == "sklearn":
    from sklearn.feature_selection import mutual_info_regression

    def run():
        return float(mutual_info_regression(x, y[:, 0], n_neighbors=a.k, random_state=0)[0])
else:
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    from bmi.estimators import KSGEnsembleFirstEstimator

    est = KSGEnsembleFirstEstimator(neighborhoods=(a.k,))

    def run():
        return float(est.estimate(x, y))

best = float("inf")
value = None
for _ in range(max(1, a.reps)):
    t = time.perf_counter()
    value = run()
    best = min(best, time.perf_counter() - t)
print(json.dumps({"which": a.which, "n": a.n, "dx": a.dx, "dy": a.dy, "k": a.k, "seconds": best, "value": value}))
