/* Counts the C heap allocations of a whole process (LD_PRELOAD), including those that bypass
 * Rust's allocator (OpenBLAS's buffers), and prints the totals to stderr at exit.
 * Used by benches/count_allocations.sh. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

static atomic_long allocations;

#define FORWARD(ret, name, params, args)                                   \
    ret name params {                                                      \
        static ret(*real) params;                                          \
        if (!real) real = (ret(*) params)dlsym(RTLD_NEXT, #name);          \
        atomic_fetch_add(&allocations, 1);                                 \
        return real args;                                                  \
    }

FORWARD(void *, malloc, (size_t n), (n))
FORWARD(void *, realloc, (void *p, size_t n), (p, n))
FORWARD(int, posix_memalign, (void **p, size_t a, size_t n), (p, a, n))
FORWARD(void *, aligned_alloc, (size_t a, size_t n), (a, n))
FORWARD(void *, memalign, (size_t a, size_t n), (a, n))

__attribute__((destructor)) static void report(void) {
    fprintf(stderr, "heap allocations: %ld\n", (long)atomic_load(&allocations));
}
