#define _GNU_SOURCE
#include "bench_support.h"

#include <errno.h>
#include <stddef.h>
#include <unistd.h>

/* glibc's allocator, under the names it exports for exactly this purpose. */
extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *pointer, size_t size);
extern void __libc_free(void *pointer);
extern void *__libc_memalign(size_t alignment, size_t size);

static int counting;
static uint64_t allocations, frees, bytes;

static inline int on(void) { return __atomic_load_n(&counting, __ATOMIC_RELAXED); }

static inline void count_alloc(size_t size) {
    if (on()) {
        __atomic_fetch_add(&allocations, 1, __ATOMIC_RELAXED);
        __atomic_fetch_add(&bytes, size, __ATOMIC_RELAXED);
    }
}

static inline void count_free(void) {
    if (on()) __atomic_fetch_add(&frees, 1, __ATOMIC_RELAXED);
}

void *malloc(size_t size) {
    count_alloc(size);
    return __libc_malloc(size);
}

void *calloc(size_t count, size_t size) {
    count_alloc(count * size);
    return __libc_calloc(count, size);
}

void *realloc(void *pointer, size_t size) {
    if (pointer == NULL) {
        count_alloc(size);
    } else if (size == 0) {
        count_free();
    } else {
        /* A resize counts as one allocation (it may move the block). */
        count_alloc(size);
    }
    return __libc_realloc(pointer, size);
}

void free(void *pointer) {
    if (pointer != NULL) count_free();
    __libc_free(pointer);
}

void *memalign(size_t alignment, size_t size) {
    count_alloc(size);
    return __libc_memalign(alignment, size);
}

void *aligned_alloc(size_t alignment, size_t size) {
    count_alloc(size);
    return __libc_memalign(alignment, size);
}

int posix_memalign(void **result, size_t alignment, size_t size) {
    if (alignment % sizeof(void *) != 0 || (alignment & (alignment - 1)) != 0) return EINVAL;
    count_alloc(size);
    void *pointer = __libc_memalign(alignment, size);
    if (pointer == NULL && size != 0) return ENOMEM;
    *result = pointer;
    return 0;
}

void *valloc(size_t size) {
    count_alloc(size);
    return __libc_memalign((size_t)sysconf(_SC_PAGESIZE), size);
}

void *pvalloc(size_t size) {
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t rounded = (size + page - 1) & ~(page - 1);
    count_alloc(rounded);
    return __libc_memalign(page, rounded ? rounded : page);
}

void fiber_alloc_counting_set(int enabled) {
    __atomic_store_n(&counting, enabled ? 1 : 0, __ATOMIC_SEQ_CST);
}

fiber_alloc_counts fiber_alloc_counts_get(void) {
    fiber_alloc_counts c;
    c.allocations = __atomic_load_n(&allocations, __ATOMIC_SEQ_CST);
    c.frees = __atomic_load_n(&frees, __ATOMIC_SEQ_CST);
    c.bytes = __atomic_load_n(&bytes, __ATOMIC_SEQ_CST);
    return c;
}

void fiber_alloc_counts_reset(void) {
    __atomic_store_n(&allocations, 0, __ATOMIC_SEQ_CST);
    __atomic_store_n(&frees, 0, __ATOMIC_SEQ_CST);
    __atomic_store_n(&bytes, 0, __ATOMIC_SEQ_CST);
}
