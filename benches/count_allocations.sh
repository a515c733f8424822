#!/usr/bin/env bash
# Counts every heap allocation of `mibound throughput` (C's malloc family, which Rust's
# allocator also goes through, so OpenBLAS's buffers are included) for two run lengths; the
# difference divided by the extra steps is the allocations per steady-state training step.
# Fails unless the OpenBLAS backend makes none. Needs `--features blas` and a C compiler.
#
#   benches/count_allocations.sh
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -q --features blas
mkdir -p target/alloc-count
cc -O2 -shared -fPIC -o target/alloc-count/malloc_count.so benches/malloc_count.c -ldl
count() { # backend critic steps
    LD_PRELOAD="$PWD/target/alloc-count/malloc_count.so" target/release/mibound throughput \
        --backend "$1" --critic "$2" --batch 32 --steps "$3" --warmup 5 2>&1 >/dev/null |
        sed -n 's/^heap allocations: //p'
}
status=0
for backend in blas native; do
    for critic in separable concat bilinear; do
        short=$(count "$backend" "$critic" 20); long=$(count "$backend" "$critic" 120)
        per_step=$(python3 -c "print(($long - $short) / 100)")
        echo "$backend $critic: $short allocations for 20 steps, $long for 120: $per_step per step"
        if [ "$backend" = blas ] && [ "$long" != "$short" ]; then status=1; fi
    done
done
[ "$status" = 0 ] && echo "count_allocations: the OpenBLAS training step allocates nothing" ||
    echo "count_allocations: FAILED: the OpenBLAS training step allocates"
exit "$status"
