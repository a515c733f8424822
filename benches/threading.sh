#!/usr/bin/env bash
# Two cores, three ways to use them, for the separable Poole critic at N = 64, 256, 512:
# one run with both step halves concurrent (`--threads 2`), one run with OpenBLAS threading
# inside each product (`--gemm-threads 2`, blas only), and two independent one-thread runs at
# once (their steps/s summed). One thread alone is the baseline. Each row is measured in one go.
#
#   benches/threading.sh [--quick]
set -euo pipefail
cd "$(dirname "$0")/.."
SCALE=1; if [ "${1:-}" = "--quick" ]; then SCALE=10; fi
. benches/build.sh
B=$BIN
sps() { "$B" throughput --json "$@" | python3 -c "import sys,json; print(json.load(sys.stdin)['steps_per_s'])"; }
backend=$("$B" throughput --steps 5 --json | python3 -c "import sys,json; print(json.load(sys.stdin)['backend'])")
echo "| N | backend | 1 thread | 2 step threads | 2 OpenBLAS threads | 2 independent runs (sum) |"
echo "|---|---|---|---|---|---|"
for n in 64 256 512; do
    st=$(( 96000 / n / SCALE ))
    one=$(sps --batch "$n" --steps "$st")
    two=$(sps --batch "$n" --steps "$st" --threads 2)
    if [ "$backend" = blas ]; then gemm=$(sps --batch "$n" --steps "$st" --gemm-threads 2); else gemm=nan; fi
    sps --batch "$n" --steps "$st" > target/threading-a.txt & sps --batch "$n" --steps "$st" > target/threading-b.txt; wait
    runs=$(python3 -c "print(float(open('target/threading-a.txt').read()) + float(open('target/threading-b.txt').read()))")
    python3 -c "
one, two, gemm, runs = $one, $two, float('$gemm'), $runs
f = lambda v: f'{v:.0f} ({v / one:.2f}×)' if v == v else 'n/a'
print(f'| $n | $backend | {one:.0f} | {f(two)} | {f(gemm)} | {f(runs)} |')"
done
