#!/usr/bin/env bash
# Side-by-side throughput: `mibound throughput` against the PyTorch reference of the identical
# step (benches/torch_step.py), alternating A/B/A/B in one run, best of ROUNDS each. mibound is
# built with OpenBLAS when the system has it (its default backend then) and natively otherwise;
# each mibound run also measures the backend's single-thread gemm peak (`--peak`), so the
# "% of peak" column compares numbers taken minutes apart on the same machine.
#
#   MIBOUND_TORCH_PYTHON=~/.cache/torch-venv/bin/python benches/compare_torch.sh [--quick] [--native]
#
# --native measures the default (pure-Rust) build even where OpenBLAS is installed.
# Skips cleanly (exit 0) when MIBOUND_TORCH_PYTHON is unset or cannot import torch.
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${MIBOUND_TORCH_PYTHON:-}"
if [ -z "$PY" ] || ! "$PY" -c "import torch" >/dev/null 2>&1; then
    echo "compare_torch: skipped (set MIBOUND_TORCH_PYTHON to a Python with torch)"
    exit 0
fi
ROUNDS=3; STEPS_SCALE=1; NATIVE=0
for arg in "$@"; do
    case "$arg" in
        --quick) ROUNDS=1; STEPS_SCALE=10 ;;
        --native) NATIVE=1 ;;
        *) echo "usage: benches/compare_torch.sh [--quick] [--native]" >&2; exit 2 ;;
    esac
done
. benches/build.sh
# critic batch threads steps
CONFIGS="separable 64 1 1000
separable 128 1 600
separable 256 1 300
separable 512 1 150
separable 64 2 1000
separable 256 2 300
separable 512 2 150
bilinear 64 1 1000
concat 64 1 40
concat 128 1 10
concat 64 2 40
concat 128 2 10"
field() { python3 -c "import sys,json; print(max(json.loads(l)['$1'] for l in sys.stdin if l.strip()))"; }
echo "| critic | N | threads | backend | mibound steps/s | PyTorch steps/s | ratio | mibound GFLOP/s | % of threads × 1-thread gemm peak |"
echo "|---|---|---|---|---|---|---|---|---|"
while read -r critic n t steps; do
    steps=$(( steps / STEPS_SCALE > 5 ? steps / STEPS_SCALE : 5 ))
    m=""; p=""
    for _ in $(seq "$ROUNDS"); do
        m+="$($BIN throughput --critic "$critic" --batch "$n" --threads "$t" --steps "$steps" --peak --json)"$'\n'
        p+="$("$PY" benches/torch_step.py --critic "$critic" --batch "$n" --threads "$t" --steps "$steps")"$'\n'
    done
    ms=$(printf '%s' "$m" | field steps_per_s); ps=$(printf '%s' "$p" | field steps_per_s)
    gf=$(printf '%s' "$m" | field gflops); peak=$(printf '%s' "$m" | field peak_gflops)
    backend=$(printf '%s' "$m" | head -1 | python3 -c "import sys,json; print(json.load(sys.stdin)['backend'])")
    python3 -c "print(f'| $critic | $n | $t | $backend | {$ms:.1f} | {$ps:.1f} | {$ms/$ps:.2f}× | {$gf:.1f} | {100*$gf/($t*$peak):.0f} % of {$t} × {$peak:.0f} |')"
done <<< "$CONFIGS"
