#ifndef FIBER_BENCH_SUPPORT_H
#define FIBER_BENCH_SUPPORT_H

#include <stddef.h>
#include <stdint.h>

/* Support for the runtime benchmarks: an allocation counter and thread pinning.
 *
 * Counts calls into the C allocator of the whole process.
 *
 * alloc_counter.c defines malloc, calloc, realloc, free, posix_memalign,
 * aligned_alloc, memalign, valloc and pvalloc, which forward to glibc's own
 * __libc_* entry points. Because the definitions live in the executable, the
 * dynamic linker binds every library's calls to them (the Swift runtime,
 * libuv, libdispatch, glibc itself), which glibc supports ("Replacing
 * malloc" in its manual). Counting is off until enabled, so timed runs pay
 * only one relaxed load per call. */

typedef struct {
    uint64_t allocations;   /* malloc, calloc, realloc (any size > 0), *memalign, valloc, pvalloc */
    uint64_t frees;         /* free of a non-NULL pointer, realloc(p, 0) */
    uint64_t bytes;         /* bytes requested by the calls counted in `allocations` */
} fiber_alloc_counts;

/* Starts or stops counting (process-wide). */
void fiber_alloc_counting_set(int enabled);

/* The counts since the last reset. */
fiber_alloc_counts fiber_alloc_counts_get(void);

/* Sets every count to zero. */
void fiber_alloc_counts_reset(void);

/* Bytes of the C heap in use (glibc's mallinfo2: every arena, plus chunks
 * mapped on their own), to tell heap growth from other resident memory. */
size_t bench_heap_in_use(void);

/* Thread placement (sched_setaffinity on the calling thread). */

/* How many CPUs this process may run on. */
int bench_allowed_cpu_count(void);

/* The id of the `index`-th CPU this process may run on, or -1. */
int bench_allowed_cpu(int index);

/* Pins the calling thread to CPU `cpu`; returns 0 or an errno value. */
int bench_pin_current_thread(int cpu);

/* Lets the calling thread run on every CPU the process may use; 0 or errno. */
int bench_unpin_current_thread(void);

#endif
