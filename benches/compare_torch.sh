#!/usr/bin/env bash
# Side-by-side throughput: `mibound throughput` against the PyTorch reference of the identical
# step (benches/torch_step.py), alternating A/B/A/B in one run, best of ROUNDS each.
#
#   MIBOUND_TORCH_PYTHON=~/.cache/torch-venv/bin/python benches/compare_torch.sh [--quick]
#
# Skips cleanly (exit 0) when MIBOUND_TORCH_PYTHON is unset or cannot import torch.
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${MIBOUND_TORCH_PYTHON:-}"
if [ -z "$PY" ] || ! "$PY" -c "import torch" >/dev/null 2>&1; then
    echo "compare_torch: skipped (set MIBOUND_TORCH_PYTHON to a Python with torch)"
    exit 0
fi
ROUNDS=3; STEPS_SCALE=1
if [ "${1:-}" = "--quick" ]; then ROUNDS=1; STEPS_SCALE=10; fi
cargo build --release -q
BIN=target/release/mibound
# critic batch threads steps
CONFIGS="separable 64 1 1000
separable 128 1 600
separable 256 1 300
separable 512 1 150
separable 256 2 300
separable 512 2 150
bilinear 64 1 1000
concat 64 1 40
concat 128 1 10"
best() { python3 -c "import sys,json; print(max(json.loads(l)['steps_per_s'] for l in sys.stdin if l.strip()))"; }
echo "| critic | N | threads | mibound steps/s | PyTorch steps/s | ratio | mibound GFLOP/s |"
echo "|---|---|---|---|---|---|---|"
while read -r critic n t steps; do
    steps=$(( steps / STEPS_SCALE > 5 ? steps / STEPS_SCALE : 5 ))
    m=""; p=""
    for _ in $(seq "$ROUNDS"); do
        m+="$($BIN throughput --critic "$critic" --batch "$n" --threads "$t" --steps "$steps" --json)"$'\n'
        p+="$("$PY" benches/torch_step.py --critic "$critic" --batch "$n" --threads "$t" --steps "$steps")"$'\n'
    done
    ms=$(printf '%s' "$m" | best); ps=$(printf '%s' "$p" | best)
    gf=$(printf '%s' "$m" | python3 -c "import sys,json; print(round(max(json.loads(l)['gflops'] for l in sys.stdin if l.strip()),1))")
    echo "| $critic | $n | $t | $(printf %.1f "$ms") | $(printf %.1f "$ps") | $(python3 -c "print(f'{$ms/$ps:.2f}×')") | $gf |"
done <<< "$CONFIGS"
