#!/usr/bin/env bash
# Side by side in one run: mibound's KSG (benches/ksg.rs) against scikit-learn's
# mutual_info_regression (1-d, k = 3) and bmi's KSGEnsembleFirstEstimator(neighborhoods=(5,))
# (5 × 5 dimensions, k = 5), alternating A/B per round, best of ROUNDS (each run itself best of
# its --reps), printing ratios; then how mibound's cost grows with n.
#
#   MIBOUND_BMI_PYTHON=/tmp/bmivenv/bin/python benches/compare_classical.sh [--quick] [--no-1e6]
#
# The Python needs numpy and scikit-learn (and benchmark-mi with jax for the bmi rows):
#   python3 -m venv /tmp/bmivenv && /tmp/bmivenv/bin/pip install benchmark-mi "jax==0.4.33" "jaxlib==0.4.33" scikit-learn
# Skips cleanly (exit 0) when no such Python is found; the bmi rows are skipped alone when bmi
# is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${MIBOUND_BMI_PYTHON:-python3}"
if ! command -v "$PY" >/dev/null 2>&1 || ! "$PY" -c "import numpy, sklearn" >/dev/null 2>&1; then
    echo "compare_classical: skipped (set MIBOUND_BMI_PYTHON to a Python with numpy and scikit-learn)"
    exit 0
fi
HAVE_BMI=1
"$PY" -c "import bmi" >/dev/null 2>&1 || HAVE_BMI=0
ROUNDS=3; BIG=1
for arg in "$@"; do
    case "$arg" in
        --quick) ROUNDS=1 ;;
        --no-1e6) BIG=0 ;;
        *) echo "usage: benches/compare_classical.sh [--quick] [--no-1e6]" >&2; exit 2 ;;
    esac
done
cargo build --release -q --bench ksg
ours() { cargo bench -q --bench ksg -- "$@"; }
field() { python3 -c "import sys,json; v=[json.loads(l)['$1'] for l in sys.stdin if l.strip()]; print(min(v))"; }
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1

echo "## KSG side by side (seconds, best of $ROUNDS rounds; ratio = other / mibound)"
echo
echo "| task | n | k | other | other s | mibound 1 thread s | ratio | mibound 2 threads s | ratio |"
echo "|---|---|---|---|---|---|---|---|---|"
# which n dx dy k reps
CONFIGS="sklearn 10000 1 1 3 3
sklearn 100000 1 1 3 3
bmi 5000 5 5 5 3"
[ "$BIG" = 1 ] && CONFIGS+=$'\nsklearn 1000000 1 1 3 1'
while read -r which n dx dy k reps; do
    if [ "$which" = bmi ] && [ "$HAVE_BMI" = 0 ]; then
        echo "| ${dx}×${dy} | $n | $k | bmi | skipped (no bmi) | | | | |"
        continue
    fi
    o=""; m1=""; m2=""
    for _ in $(seq "$ROUNDS"); do
        o+="$("$PY" benches/compare_classical.py "$which" --n "$n" --dx "$dx" --dy "$dy" --k "$k" --reps "$reps")"$'\n'
        m1+="$(ours --n "$n" --dx "$dx" --dy "$dy" --k "$k" --threads 1 --reps "$reps")"$'\n'
        m2+="$(ours --n "$n" --dx "$dx" --dy "$dy" --k "$k" --threads 2 --reps "$reps")"$'\n'
    done
    os=$(printf '%s' "$o" | field seconds); s1=$(printf '%s' "$m1" | field seconds); s2=$(printf '%s' "$m2" | field seconds)
    name=$([ "$which" = bmi ] && echo "bmi KSGEnsembleFirstEstimator((5,))" || echo "sklearn mutual_info_regression")
    python3 -c "print(f'| ${dx}×${dy} | $n | $k | $name | {$os:.4f} | {$s1:.4f} | {$os/$s1:.1f}× | {$s2:.4f} | {$os/$s2:.1f}× |')"
done <<< "$CONFIGS"

echo
echo "## mibound KSG cost against n (seconds, best of $ROUNDS; k = 3 for 1×1, 5 for 5×5)"
echo
echo "| task | n | 1 thread s | 2 threads s | µs per point (1 thread) |"
echo "|---|---|---|---|---|"
SCALING="1 1 3 1000 10000 100000"
[ "$BIG" = 1 ] && SCALING+=" 1000000"
SCALING+=$'\n'"5 5 5 1000 10000 100000"
while read -r dx dy k ns; do
    for n in $ns; do
        reps=$(( n >= 100000 ? 1 : 3 ))
        a=""; b=""
        for _ in $(seq "$ROUNDS"); do
            a+="$(ours --n "$n" --dx "$dx" --dy "$dy" --k "$k" --threads 1 --reps "$reps")"$'\n'
            b+="$(ours --n "$n" --dx "$dx" --dy "$dy" --k "$k" --threads 2 --reps "$reps")"$'\n'
        done
        s1=$(printf '%s' "$a" | field seconds); s2=$(printf '%s' "$b" | field seconds)
        python3 -c "print(f'| ${dx}×${dy} | $n | {$s1:.4f} | {$s2:.4f} | {1e6*$s1/$n:.2f} |')"
    done
done <<< "$SCALING"
