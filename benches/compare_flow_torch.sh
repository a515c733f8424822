#!/usr/bin/env bash
# Throughput of one flow-Gaussianisation training step: mibound (examples/flows_throughput.rs)
# against the same step in PyTorch (benches/torch_flow_step.py), one thread each, as a ratio.
# Python: $MIBOUND_TORCH_PYTHON (default python3). Skipped (exit 0 with a message) when it or
# torch is missing.
#   benches/compare_flow_torch.sh [steps] [batch] [blocks]
set -euo pipefail
cd "$(dirname "$0")/.."
steps=${1:-500}; batch=${2:-256}; blocks=${3:-4}
py=${MIBOUND_TORCH_PYTHON:-python3}
if ! "$py" -c "import torch" 2>/dev/null; then
    echo "skipped: $py with torch not available (set MIBOUND_TORCH_PYTHON)"
    exit 0
fi
cargo build --release --example flows_throughput >/dev/null
rust=$(target/release/examples/flows_throughput "$steps" "$batch" "$blocks")
torch=$("$py" benches/torch_flow_step.py --steps "$steps" --batch "$batch" --blocks "$blocks" --threads 1)
echo "$rust"
echo "$torch"
python3 - "$rust" "$torch" <<'PY'
import json, sys
r, t = json.loads(sys.argv[1]), json.loads(sys.argv[2])
print(f"mibound / torch steps per second: {r['steps_per_s'] / t['steps_per_s']:.2f} "
      f"(params {r['params']} vs {t['params']})")
PY
