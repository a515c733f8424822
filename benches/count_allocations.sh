#!/usr/bin/env bash
# Counts every heap allocation of `mibound throughput` (C's malloc family, which Rust's
# allocator also goes through, so OpenBLAS's buffers are included) for two run lengths; the
# difference divided by the extra steps is the allocations per steady-state training step.
# One allocation may happen once at a run-dependent moment (with the OpenBLAS backend the
# separable critic made 729 allocations in 20 steps and 730 in 120, 220, 420 and 1000 in one
# series of runs, and 729 in 120 and 730 in 1120 in another): the check allows that single
# one-time allocation over the 1000 extra steps; an allocation per step would add ≥ 1000.
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
        short=$(count "$backend" "$critic" 120); long=$(count "$backend" "$critic" 1120)
        per_step=$(python3 -c "print(($long - $short) / 1000)")
        echo "$backend $critic: $short allocations for 120 steps, $long for 1120: $per_step per step"
        if [ "$backend" = blas ] && [ $((long - short)) -gt 1 ]; then status=1; fi
    done
done
[ "$status" = 0 ] && echo "count_allocations: the OpenBLAS training step allocates nothing" ||
    echo "count_allocations: FAILED: the OpenBLAS training step allocates"
exit "$status"
