#define _GNU_SOURCE
#include "cfiber_shims.h"

static _Thread_local void *cfiber_current_loop;

void *cfiber_current_loop_get(void) { return cfiber_current_loop; }
void cfiber_current_loop_set(void *loop) { cfiber_current_loop = loop; }

#include <pthread.h>
#include <sched.h>
#include <string.h>

void cfiber_set_thread_name(const char *name) {
    char short_name[16];
    strncpy(short_name, name, sizeof short_name - 1);
    short_name[sizeof short_name - 1] = 0;
    pthread_setname_np(pthread_self(), short_name);
}

int cfiber_available_cpus(void) {
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) != 0) return 0;
    return CPU_COUNT(&set);
}

#include <malloc.h>

int cfiber_set_malloc_top_pad(int bytes) {
#ifdef M_TOP_PAD
    return mallopt(M_TOP_PAD, bytes);
#else
    (void)bytes;
    return 0;
#endif
}
