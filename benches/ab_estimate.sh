#!/usr/bin/env bash
# Two builds of `mibound`, alternating on the same files, the default estimate as a user calls
# it (`estimate … --quiet --json`: process start, loading, interval and test included): the
# median wall time of each over ROUNDS rounds, their ratio, and whether their headline values
# agree (value and interval, to the bit). Each round alternates which binary runs first. The
# files: the demo's Gaussian (5000 rows, 20 + 20), `multinormal-dense-5-5-0.5`
# (5 + 5) and `digits_x2-0.5` (128 + 128) at seed 0, and, with MIBOUND_SKLEARN_PYTHON (a Python
# with scikit-learn and pandas), scikit-learn's wine, iris and diabetes as pandas writes them;
# with AB_WIDE=1, 100 independent Gaussian pairs at 10⁵ rows (100 + 100 columns, I = 51 nats,
# `sample gaussian --dim 100 --mi 51.08`: the block search on wide data; about a minute a call).
#
#   benches/ab_estimate.sh OLD_BINARY NEW_BINARY [ROUNDS]      (docs/results.md, section 17)
set -euo pipefail
OLD=${1:?usage: benches/ab_estimate.sh OLD_BINARY NEW_BINARY [ROUNDS]}
NEW=${2:?usage: benches/ab_estimate.sh OLD_BINARY NEW_BINARY [ROUNDS]}
ROUNDS=${3:-5}
D=target/ab-estimate
mkdir -p "$D"
"$NEW" sample gaussian --dim 20 --mi 2 --n 5000 --seed 0 --out "$D/demo" >/dev/null
"$NEW" sample multinormal-dense-5-5-0.5 --n 5000 --seed 0 --out "$D/dense55" >/dev/null
"$NEW" sample digits_x2-0.5 --n 5000 --seed 0 --out "$D/digits" >/dev/null
cases=(
    "demo|--x $D/demo/x.npy --y $D/demo/y.npy"
    "dense-5-5|--x $D/dense55/x.npy --y $D/dense55/y.npy"
    "digits_x2-0.5|--x $D/digits/x.npy --y $D/digits/y.npy --drop-constant"
)
if [ "${AB_WIDE:-0}" = 1 ]; then
    "$NEW" sample gaussian --dim 100 --mi 51.08 --n 100000 --seed 0 --out "$D/wide" >/dev/null
    cases+=("wide-100-100|--x $D/wide/x.npy --y $D/wide/y.npy")
fi
if [ -n "${MIBOUND_SKLEARN_PYTHON:-}" ]; then
    "$MIBOUND_SKLEARN_PYTHON" - "$D" <<'PY'
import sys
from sklearn.datasets import load_diabetes, load_iris, load_wine
for name, load in (("wine", load_wine), ("iris", load_iris), ("diabetes", load_diabetes)):
    load(as_frame=True).frame.to_csv(f"{sys.argv[1]}/{name}.csv", index=False)
PY
    cases+=(
        "wine|--x $D/wine.csv --x-cols 0-12 --y-cols target --discrete target"
        "iris|--x $D/iris.csv --x-cols 0-3 --y-cols target --discrete target"
        "diabetes|--x $D/diabetes.csv --x-cols age-s6 --y-cols target"
    )
fi
: >"$D/times"
: >"$D/stderr.log"
for round in $(seq 1 "$ROUNDS"); do
    order="old new"; [ $((round % 2)) = 0 ] && order="new old"
    for c in "${cases[@]}"; do
        name=${c%%|*}
        read -r -a args <<<"${c#*|}"
        for which in $order; do
            bin=$OLD; [ "$which" = new ] && bin=$NEW
            # Only the binary is timed; its JSON is read afterwards.
            start=$EPOCHREALTIME
            "$bin" estimate "${args[@]}" --quiet --json >"$D/out.json" 2>>"$D/stderr.log"
            end=$EPOCHREALTIME
            result=$(python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); e = r["estimates"][r.get("headline") or 0]
print(repr(e["value"]) + "/" + repr(e["interval"]["low"]) + "/" + repr(e["interval"]["high"]))' "$D/out.json")
            echo "$name $which $(python3 -c "print($end - $start)") $result" >>"$D/times"
        done
    done
done
python3 - "$D/times" <<'PY'
import collections, statistics, sys
t = collections.defaultdict(lambda: collections.defaultdict(list))
v = collections.defaultdict(set)
for line in open(sys.argv[1]):
    name, which, secs, value = line.split()
    t[name][which].append(float(secs))
    v[name].add(value)
print("| data | old median s | new median s | ratio | old range | new range | same value and interval |")
print("|---|---:|---:|---:|---:|---:|---|")
for name, w in t.items():
    o, n = w["old"], w["new"]
    print(f"| {name} | {statistics.median(o):.2f} | {statistics.median(n):.2f} | "
          f"{statistics.median(o) / statistics.median(n):.2f} | {min(o):.1f}–{max(o):.1f} | "
          f"{min(n):.1f}–{max(n):.1f} | {'yes' if len(v[name]) == 1 else 'no: ' + ' '.join(sorted(v[name]))} |")
PY
