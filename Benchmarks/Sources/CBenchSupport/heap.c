#define _GNU_SOURCE
#include "bench_support.h"

#include <malloc.h>

size_t bench_heap_in_use(void) {
    struct mallinfo2 info = mallinfo2();
    /* uordblks: bytes in chunks in use in the main arena and the others;
     * hblkhd: bytes in chunks mapped on their own (large allocations). */
    return info.uordblks + info.hblkhd;
}
