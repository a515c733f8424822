#!/usr/bin/env bash
# Bias and spread over seeds on the discrete, mixed and conditional tasks (tasks::conditional):
# mibound (benches/discrete_accuracy.rs) against scikit-learn and ennemi on the same samples.
#
#   MIBOUND_PYTHON=/tmp/ds-venv312/bin/python benches/compare_discrete.sh [--n N] [--seeds S]
#
# The Python needs numpy 2, scikit-learn and ennemi (Python 3.12):
#   ~/.pyenv/versions/3.12.1/bin/python -m venv /tmp/ds-venv312 && /tmp/ds-venv312/bin/pip install ennemi scikit-learn
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${MIBOUND_PYTHON:-python3}"
if ! "$PY" -c "import numpy, sklearn, ennemi" >/dev/null 2>&1; then
    echo "compare_discrete: skipped (set MIBOUND_PYTHON to a Python with numpy, scikit-learn and ennemi)"
    exit 0
fi
N=1000; SEEDS=20
while [ $# -gt 0 ]; do
    case "$1" in
        --n) N="$2"; shift 2 ;;
        --seeds) SEEDS="$2"; shift 2 ;;
        *) echo "usage: benches/compare_discrete.sh [--n N] [--seeds S]" >&2; exit 2 ;;
    esac
done
DIR="$(mktemp -d)"
cargo build --release -q --bench discrete_accuracy
cargo bench -q --bench discrete_accuracy -- --dir "$DIR" --n "$N" --seeds "$SEEDS" | "$PY" benches/compare_discrete.py --dir "$DIR" --n "$N"
rm -r "$DIR"
