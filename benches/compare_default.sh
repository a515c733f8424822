#!/usr/bin/env bash
# The default estimate's wall time, this build against an older build of mibound, side by side
# in one run on the same files (issue #25's acceptance), and `--estimators ksg:k=3` on 10^5 rows
# against scikit-learn's mutual_info_regression (interval and permutation test included on our
# side, process start and file loading too; scikit-learn's call timed inside Python).
#
#   OLD=/path/to/old/mibound SKLEARN_PYTHON=/path/to/python benches/compare_default.sh
#
# Without OLD the old-build column is skipped; without a Python that has scikit-learn the KSG
# row is skipped.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -q
NEW=target/release/mibound
D=target/compare-default
mkdir -p "$D"
$NEW sample gaussian --dim 20 --mi 2 --n 5000 --seed 0 --out "$D/demo" >/dev/null
$NEW sample 1v1-normal-0.75 --n 5000 --seed 0 --out "$D/pair" >/dev/null
$NEW sample 1v1-normal-0.75 --n 100000 --seed 0 --out "$D/big" >/dev/null
wall() { local t0 t1; t0=$(date +%s.%N); "$@" >/dev/null 2>&1; t1=$(date +%s.%N); python3 -c "print(f'{$t1-$t0:.2f}')"; }
echo "| data (5000 rows) | this build s | old build s | ratio |"
echo "|---|---:|---:|---:|"
for case in demo pair; do
    args=(estimate --x "$D/$case/x.npy" --y "$D/$case/y.npy" --quiet)
    new=$(wall "$NEW" "${args[@]}")
    if [[ -n "${OLD:-}" ]]; then
        old=$(wall "$OLD" "${args[@]}")
        ratio=$(python3 -c "print(f'{$old/$new:.1f}x')")
    else
        old="-"; ratio="-"
    fi
    echo "| $case ($( [[ $case == demo ]] && echo '20 + 20' || echo '1 + 1') dims) | $new | $old | $ratio |"
done
PY="${SKLEARN_PYTHON:-python3}"
if "$PY" -c "import sklearn" >/dev/null 2>&1; then
    echo
    echo "| 10^5 rows, 1 + 1 dims | seconds (best of 3) |"
    echo "|---|---:|"
    best=999
    for _ in 1 2 3; do t=$(wall "$NEW" estimate --x "$D/big/x.npy" --y "$D/big/y.npy" --estimators ksg:k=3 --quiet); best=$(python3 -c "print(min($best,$t))"); done
    echo "| mibound estimate --estimators ksg:k=3 (interval, permutation test, process start) | $best |"
    sk=$("$PY" - "$D/big" <<'PY'
import sys, time, numpy as np
from sklearn.feature_selection import mutual_info_regression
x = np.load(sys.argv[1] + "/x.npy"); y = np.load(sys.argv[1] + "/y.npy").ravel()
best = min((lambda t: (mutual_info_regression(x, y, n_neighbors=3, random_state=0), time.perf_counter() - t)[1])(time.perf_counter()) for _ in range(3))
print(f"{best:.2f}")
PY
)
    echo "| scikit-learn mutual_info_regression(n_neighbors=3) | $sk |"
    python3 -c "print(f'\nratio (scikit-learn / mibound): {$sk/$best:.2f}')"
fi
