#define _GNU_SOURCE
#include "bench_support.h"

#include <errno.h>
#include <sched.h>

/* The process's CPU set as it was at the first call, before any pinning. */
static cpu_set_t process_set;
static int process_set_ready;

static cpu_set_t *allowed(void) {
    if (!__atomic_load_n(&process_set_ready, __ATOMIC_ACQUIRE)) {
        cpu_set_t set;
        CPU_ZERO(&set);
        if (sched_getaffinity(0, sizeof set, &set) != 0) return NULL;
        process_set = set;
        __atomic_store_n(&process_set_ready, 1, __ATOMIC_RELEASE);
    }
    return &process_set;
}

int bench_allowed_cpu_count(void) {
    cpu_set_t *set = allowed();
    return set ? CPU_COUNT(set) : 0;
}

int bench_allowed_cpu(int index) {
    cpu_set_t *set = allowed();
    if (!set || index < 0) return -1;
    for (int cpu = 0, seen = 0; cpu < CPU_SETSIZE; cpu++) {
        if (CPU_ISSET(cpu, set) && seen++ == index) return cpu;
    }
    return -1;
}

int bench_pin_current_thread(int cpu) {
    if (cpu < 0 || cpu >= CPU_SETSIZE) return EINVAL;
    allowed();
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return sched_setaffinity(0, sizeof set, &set) == 0 ? 0 : errno;
}

int bench_unpin_current_thread(void) {
    cpu_set_t *set = allowed();
    if (!set) return errno;
    return sched_setaffinity(0, sizeof *set, set) == 0 ? 0 : errno;
}
