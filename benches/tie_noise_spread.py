"""How much per-feature MI moves with the tie-breaking noise on tied data (docs/discrete.md,
"Tie noise"): `mibound features --seed S` for S = 0..19 against scikit-learn's
mutual_info_classif / mutual_info_regression with random_state = 0..19, on scikit-learn's wine
(class target) and diabetes (continuous target), whose measurements are recorded to a few
digits and tie. Prints, per data set, the standard deviation over seeds of each feature's MI
(largest and median over features, both tools) and the three features that move most.

  /tmp/ds-venv/bin/python benches/tie_noise_spread.py target/release/mibound

Needs numpy, pandas and scikit-learn (which ships both data sets offline).
"""
import json
import subprocess
import sys
import tempfile

import numpy as np
from sklearn import datasets
from sklearn.feature_selection import mutual_info_classif, mutual_info_regression

SEEDS = range(20)


def spread(binary, name, frame, target, sk):
    X, y = frame.drop(columns=[target]), frame[target]
    S = np.array([sk(X, y, n_neighbors=3, random_state=r) for r in SEEDS])
    with tempfile.NamedTemporaryFile("w", suffix=".csv") as f:
        frame.to_csv(f.name, index=False)
        M = []
        for s in SEEDS:
            out = subprocess.run([binary, "features", "--x", f.name, "--target", target, "--json", "--seed", str(s)],
                                 capture_output=True, text=True, check=True).stdout
            mi = {r["feature"]: r["mi"] for r in json.loads(out)["features"]}
            M.append([mi[c] for c in X.columns])
    M = np.array(M)
    sd_m, sd_s = M.std(0, ddof=1), S.std(0, ddof=1)
    print(f"{name} ({len(frame)} rows): mibound sd over seeds: max {sd_m.max():.4f}, median {np.median(sd_m):.4f}; "
          f"scikit-learn sd over random_state: max {sd_s.max():.4f}, median {np.median(sd_s):.4f}; "
          f"max |difference of the means| {abs(S.mean(0) - M.mean(0)).max():.4f}")
    for i in np.argsort(-sd_m)[:3]:
        print(f"   {X.columns[i]}: mibound mean {M[:, i].mean():.4f} sd {sd_m[i]:.4f} "
              f"[{M[:, i].min():.4f}, {M[:, i].max():.4f}]; scikit-learn mean {S[:, i].mean():.4f} sd {sd_s[i]:.4f}; "
              f"{X.iloc[:, i].nunique()} distinct values")


if __name__ == "__main__":
    binary = sys.argv[1] if len(sys.argv) > 1 else "target/release/mibound"
    spread(binary, "wine", datasets.load_wine(as_frame=True).frame, "target", mutual_info_classif)
    spread(binary, "diabetes", datasets.load_diabetes(as_frame=True).frame, "target", mutual_info_regression)
