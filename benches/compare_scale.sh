#!/usr/bin/env bash
# Side by side at representation scale (issue #53): mibound's default, benchmark-mi's InfoNCE and
# LMI on the same samples of the scale tasks (mibound::tasks::SCALE_IDS, docs/tasks.md), each
# tool's estimate, the truth, wall seconds and peak memory (/usr/bin/time -v), one thread per tool.
# Records go to docs/runs/scale.jsonl (a record per task, seed and tool; a re-run replaces its
# own records and keeps the others), the table into docs/peers.md by scripts/make-results, the
# figure to docs/figures/scale.png.
#
#   cargo build --release && cargo build --release --example scale
#   HALF=held-out benches/compare_scale.sh              # every tool on one half
#   TOOLS=mibound benches/compare_scale.sh              # mibound again (e.g. a new default), the
#                                                       # peers' records on the same samples kept
#
# Environment: MIBOUND (default target/release/mibound; a private copy is run), EXAMPLE
# (target/release/examples/scale), TOOLS (mibound,bmi-infonce,lmi), TASKS (comma-separated scale
# ids, default all), HALF (all, tuning or held-out), SEEDS (0), DATA (where the samples are
# written once and reused, /tmp/mibound-scale/data), OUT (docs/runs/scale.jsonl), PNG
# (docs/figures/scale.png), PEERS_VENV (a venv with benchmark-mi 0.1.3 and matplotlib, default
# /tmp/bmi-venv), PEERS_DIR (peer_estimate.py's folder, /work/shared/peers/beyond: LMI runs in
# the venv it picks), PEER_MAX_ROWS (20000: the peers skip bigger tasks; LMI took 398 s and bmi
# InfoNCE 162 s on 2·10⁴ × 64+64), THREADS (1), TIMEOUT (seconds per call, 3600).
set -euo pipefail
cd "$(dirname "$0")/.."
MIBOUND="${MIBOUND:-target/release/mibound}"
EXAMPLE="${EXAMPLE:-target/release/examples/scale}"
PEERS_VENV="${PEERS_VENV:-/tmp/bmi-venv}"
PEERS_DIR="${PEERS_DIR:-/work/shared/peers/beyond}"
DATA="${DATA:-/tmp/mibound-scale/data}"
OUT="${OUT:-docs/runs/scale.jsonl}"
PNG="${PNG:-docs/figures/scale.png}"
for f in "$MIBOUND" "$EXAMPLE"; do
    [ -x "$f" ] || { echo "compare_scale: no $f (cargo build --release && cargo build --release --example scale)" >&2; exit 1; }
done
mkdir -p "$DATA"
BIN="$(dirname "$DATA")/mibound"
# a private copy: a rebuild during the run must not change what is measured
cp "$MIBOUND" "$BIN"
echo "compare_scale: $(date -u '+%F %T UTC'), $("$BIN" --version 2>/dev/null || echo mibound) \
(sha256 $(sha256sum "$BIN" | cut -c1-12)), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); \
tools ${TOOLS:-all}; tasks ${TASKS:-all}; half ${HALF:-all}; seeds ${SEEDS:-0}"
"$PEERS_VENV/bin/python" benches/compare_scale.py run --mibound "$BIN" --example "$EXAMPLE" \
    --tasks "${TASKS:-all}" --half "${HALF:-all}" --seeds "${SEEDS:-0}" --tools "${TOOLS:-mibound,bmi-infonce,lmi}" \
    --data "$DATA" --out "$OUT" --bmi-python "$PEERS_VENV/bin/python" --lmi-python python3 --peers "$PEERS_DIR" \
    --threads "${THREADS:-1}" --timeout "${TIMEOUT:-3600}" --peer-max-rows "${PEER_MAX_ROWS:-20000}" \
    --command "TOOLS=${TOOLS:-mibound,bmi-infonce,lmi} TASKS=${TASKS:-all} HALF=${HALF:-all} SEEDS=${SEEDS:-0} benches/compare_scale.sh"
echo "compare_scale: finished $(date -u '+%F %T UTC'), load $(cut -d' ' -f1-3 /proc/loadavg)"
"$PEERS_VENV/bin/python" benches/compare_scale.py plot --out "$OUT" --png "$PNG"
