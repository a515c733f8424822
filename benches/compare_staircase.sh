#!/usr/bin/env bash
# The full Poole staircase (separable critic, InfoNCE, N = 64, levels 2,4,6,8,10 × 4000 steps),
# wall time and per-level estimates: `mibound train` with 1 and 2 threads, then the PyTorch
# peer script (`torch_staircase.py`, outside this repository) with 1 and 2 threads, in one run.
#
#   MIBOUND_TORCH_PYTHON=~/.cache/torch-venv/bin/python \
#   MIBOUND_TORCH_STAIRCASE=../shared/peers/torch_staircase.py benches/compare_staircase.sh [--quick]
#
# The PyTorch rows are skipped when either variable is unset or does not work.
set -euo pipefail
cd "$(dirname "$0")/.."
STEPS=4000; if [ "${1:-}" = "--quick" ]; then STEPS=200; fi
. benches/build.sh
summary() { # tool threads, JSON lines on stdin
    python3 -c "
import sys, json
rows = [json.loads(l) for l in sys.stdin if l.strip()]
wall = rows[0]['run_wall_s'] if 'run_wall_s' in rows[0] else sum(r['wall_s'] for r in rows)
est = ', '.join(f\"{r['estimate_mean']:.3f}\" for r in rows)
print(f'| $1 | $2 | {wall:.2f} | {len(rows) * rows[0][\"steps\"] / wall:.0f} | {est} |')"
}
echo "| tool | threads | wall s | steps/s | estimates at I = 2, 4, 6, 8, 10 |"
echo "|---|---|---|---|---|"
for t in 1 2; do
    $BIN train --threads "$t" --steps "$STEPS" --json | summary "mibound ($($BIN throughput --steps 2 --json | python3 -c "import sys,json; print(json.load(sys.stdin)['backend'])"))" "$t"
done
PY="${MIBOUND_TORCH_PYTHON:-}"; PEER="${MIBOUND_TORCH_STAIRCASE:-}"
if [ -n "$PY" ] && [ -n "$PEER" ] && [ -f "$PEER" ] && "$PY" -c "import torch" >/dev/null 2>&1; then
    for t in 1 2; do
        "$PY" "$PEER" --critic separable --estimator infonce --batch 64 --steps "$STEPS" \
            --mi 2,4,6,8,10 --threads "$t" | summary "PyTorch ($PEER)" "$t"
    done
else
    echo "compare_staircase: PyTorch rows skipped (set MIBOUND_TORCH_PYTHON and MIBOUND_TORCH_STAIRCASE)"
fi
