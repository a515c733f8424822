#!/usr/bin/env bash
# Per-feature MI side by side in one run (benches/compare_features.py): scikit-learn's
# mutual_info_regression / mutual_info_classif against mibound's feature_mi on the same
# 100 × 10 000 data, with the largest difference between the answers.
#
#   MIBOUND_PYTHON=/tmp/ds-venv/bin/python benches/compare_features.sh [--quick]
#
# The Python needs numpy and scikit-learn:  python3 -m venv /tmp/ds-venv && /tmp/ds-venv/bin/pip install scikit-learn
# Skips cleanly (exit 0) when no such Python is found.
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${MIBOUND_PYTHON:-python3}"
if ! command -v "$PY" >/dev/null 2>&1 || ! "$PY" -c "import numpy, sklearn" >/dev/null 2>&1; then
    echo "compare_features: skipped (set MIBOUND_PYTHON to a Python with numpy and scikit-learn)"
    exit 0
fi
REPS=3
[ "${1:-}" = "--quick" ] && REPS=1
cargo build --release -q --bench features
"$PY" benches/compare_features.py --reps "$REPS"
