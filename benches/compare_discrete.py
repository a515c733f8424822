"""Bias and spread over seeds on the tasks of tasks::conditional: mibound against scikit-learn and
ennemi on the same samples (written by benches/discrete_accuracy.rs). Prints a markdown table.

  benches/compare_discrete.sh      (Python 3.12 with numpy 2, scikit-learn and ennemi)

Estimators on the Python side, as a user would call them (library defaults, n_neighbors = 3):
- two discrete sides: mutual_info_classif(x, y, discrete_features=True) (the plug-in,
  mutual_info_score); ennemi.estimate_mi(y, x, discrete_x=True, discrete_y=True);
- discrete x, continuous y: mutual_info_regression(x, y, discrete_features=True) (Ross 2014);
  ennemi.estimate_mi(y, x, discrete_x=True);
- zero-inflated pairs (atoms in both): mutual_info_regression(x, y) (KSG-1 with noise);
  ennemi.estimate_mi(y, x) (KSG-1);
- conditional: scikit-learn has none; ennemi.estimate_mi(y, x, cond=z).
scikit-learn clips at 0; ennemi and mibound do not.
"""
import argparse
import json
import sys
from collections import defaultdict

import numpy as np
from sklearn.feature_selection import mutual_info_classif, mutual_info_regression
import ennemi

p = argparse.ArgumentParser()
p.add_argument("--dir", required=True)
p.add_argument("--n", type=int, required=True)
a = p.parse_args()

rows = [json.loads(l) for l in sys.stdin if l.strip()]
tasks = []
for r in rows:
    if r["task"] not in [t[0] for t in tasks]:
        tasks.append((r["task"], r["truth"], r["kind"]))
values = defaultdict(list)
for r in rows:
    values[(r["task"], "mibound " + r["estimator"])].append(r["value"])
seeds = sorted({r["seed"] for r in rows})

for task, truth, kind in tasks:
    for s in seeds:
        m = np.fromfile(f"{a.dir}/{task}-{s}.bin", dtype="<f8").reshape(a.n, -1)
        x, y = m[:, 0], m[:, 1]
        if kind == "cmi":
            z = m[:, 2:]
            values[(task, "ennemi estimate_mi(cond=z)")].append(float(np.ravel(ennemi.estimate_mi(y, x, cond=z))[0]))
        elif task.startswith("channel"):
            values[(task, "sklearn mutual_info_classif(discrete)")].append(
                float(mutual_info_classif(x[:, None], y, discrete_features=True, random_state=s)[0]))
            values[(task, "ennemi (discrete x, y)")].append(
                float(np.ravel(ennemi.estimate_mi(y, x, discrete_x=True, discrete_y=True))[0]))
        elif task.startswith("gao"):
            values[(task, "sklearn mutual_info_regression(discrete x)")].append(
                float(mutual_info_regression(x[:, None], y, discrete_features=True, random_state=s)[0]))
            values[(task, "ennemi (discrete x)")].append(float(np.ravel(ennemi.estimate_mi(y, x, discrete_x=True))[0]))
        else:
            values[(task, "sklearn mutual_info_regression")].append(
                float(mutual_info_regression(x[:, None], y, random_state=s)[0]))
            values[(task, "ennemi")].append(float(np.ravel(ennemi.estimate_mi(y, x))[0]))

print(f"## Bias and spread over {len(seeds)} seeds, n = {a.n} (nats)")
print()
print("| task | truth | estimator | mean | bias | sd | RMSE |")
print("|---|---|---|---|---|---|---|")
for task, truth, kind in tasks:
    for (t, est), v in values.items():
        if t != task:
            continue
        v = np.array(v)
        bias = v.mean() - truth
        rmse = np.sqrt(np.mean((v - truth) ** 2))
        what = "I(X;Y|Z)" if kind == "cmi" else "I(X;Y)"
        print(f"| {task} | {what} = {truth:.4f} | {est} | {v.mean():.4f} | {bias:+.4f} | {v.std(ddof=1):.4f} | {rmse:.4f} |")
