#!/usr/bin/env bash
# Side by side, in one run, on the same samples (issue #25): mibound's default estimate (headline
# and its KSG cross-check) and `--estimators ksg`, against torch-mist's `estimate_mi` default and
# benchmark-mi's neural estimators (InfoNCE, NWJ, DV, MINE) with their defaults, on 8 tasks of the
# tuning half and 8 of the held-out half (low-dim, high-dim and images in each), n = 5000 rows.
# Writes OUT/results.jsonl (one line per task, seed, estimator), OUT/table.md and OUT/figure.png
# (mean absolute error against mean wall time, one point per estimator).
#
#   MIBOUND=target/release/mibound SEEDS=0,1 OUT=/tmp/peers nice -n 10 benches/compare_peers.sh [--quick]
#
# Environment: MIBOUND (default target/release/mibound of this repository; build it first with
# `cargo build --release`; the script runs a copy of it, OUT/mibound), SEEDS (default 0), TASKS
# (comma-separated ids of `mibound tasks`, default below), N (rows, 5000), BMI (bmi estimators,
# default infonce,nwj,dv,mine), OUT (default /tmp/mibound-compare-peers), PEERS_DIR (folder holding
# peer_estimate.py, default /work/shared/peers/beyond), PEERS_VENV (default
# ~/.cache/mibound-peers2-venv: torch-mist, benchmark-mi 0.1.3, matplotlib; see PEERS_DIR/README.md
# and setup.sh there), PEERS=0 (mibound's two calls only, no peers), TORCH_MIST=0 (no torch-mist; then
# a venv with benchmark-mi, jax 0.4.33 and matplotlib is enough).
# --quick: 2 tasks, bmi InfoNCE only (a smoke test for CI; peers still run their full defaults).
# Skips cleanly (exit 0) when the peers' venv or peer_estimate.py is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
MIBOUND="${MIBOUND:-target/release/mibound}"
PEERS_VENV="${PEERS_VENV:-$HOME/.cache/mibound-peers2-venv}"
PEERS_DIR="${PEERS_DIR:-/work/shared/peers/beyond}"
PY="$PEERS_VENV/bin/python"
OUT="${OUT:-/tmp/mibound-compare-peers}"
SEEDS="${SEEDS:-0}"
N="${N:-5000}"
BMI="${BMI:-infonce,nwj,dv,mine}"
# 8 of the tuning half, then 8 of the held-out half: 3 low-dim, 3 high-dim, 2 images in each.
DEFAULT_TASKS="mixture-diag-2-1-4-0.25,1v1-additive-0.1,classes-4-1-0.5,\
half_cube-multinormal-sparse-5-5-2-2.0,spiral-multinormal-sparse-25-25-2-2.0,staircase-20-2,\
digits-0.3,digits_x2-0.6,\
mixture-ring-2-1-5-0.2,1v1-bimodal-0.75,additive-normal-2-1.0,\
multinormal-dense-5-5-0.5,half_cube-multinormal-sparse-25-25-2-2.0,student-identity-10-10-2,\
digits-0.5,digits_x2-0.5"
TASKS="${TASKS:-$DEFAULT_TASKS}"
for arg in "$@"; do
    case "$arg" in
        --quick) TASKS="${QUICK_TASKS:-1v1-bimodal-0.75,multinormal-dense-5-5-0.5}"; BMI=infonce ;;
        *) echo "usage: benches/compare_peers.sh [--quick]" >&2; exit 2 ;;
    esac
done
NEEDS="bmi, matplotlib"
[ "${TORCH_MIST:-1}" = 0 ] || NEEDS="$NEEDS, torch_mist"
if [ ! -x "$PY" ] || ! "$PY" -c "import $NEEDS" >/dev/null 2>&1; then
    echo "compare_peers: skipped (no peers' venv with $NEEDS at $PEERS_VENV; set PEERS_VENV)"
    exit 0
fi
if [ ! -f "$PEERS_DIR/peer_estimate.py" ]; then
    echo "compare_peers: skipped (no $PEERS_DIR/peer_estimate.py; set PEERS_DIR)"
    exit 0
fi
if [ ! -x "$MIBOUND" ]; then
    echo "compare_peers: no mibound binary at $MIBOUND (cargo build --release, or set MIBOUND)" >&2
    exit 1
fi
mkdir -p "$OUT"
rm -f "$OUT/results.jsonl"
# a private copy: a rebuild of the binary during the run must not change what is measured
cp "$MIBOUND" "$OUT/mibound"
NO_PEERS=()
[ "${PEERS:-1}" = 0 ] && NO_PEERS=(--no-peers)
[ "${TORCH_MIST:-1}" = 0 ] && NO_PEERS+=(--no-torch-mist)
echo "compare_peers: $(date -u '+%F %T UTC'), $("$OUT/mibound" --version 2>/dev/null || echo mibound) \
(copy of $MIBOUND, sha256 $(sha256sum "$OUT/mibound" | cut -c1-12)), \
$(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); tasks $TASKS; seeds $SEEDS; n $N"
"$PY" benches/compare_peers.py run --mibound "$OUT/mibound" --tasks "$TASKS" --seeds "$SEEDS" --n "$N" \
    --out "$OUT" --python "$PY" --peers "$PEERS_DIR" --bmi "$BMI" "${NO_PEERS[@]}"
echo "compare_peers: finished $(date -u '+%F %T UTC'), load $(cut -d' ' -f1-3 /proc/loadavg)"
"$PY" benches/compare_peers.py report "$OUT/results.jsonl" --md "$OUT/table.md" --png "$OUT/figure.png"
