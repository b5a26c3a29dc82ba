#ifndef CFIBER_SHIMS_H
#define CFIBER_SHIMS_H

/* What Swift cannot express directly: a C11 thread-local slot that tells
 * the runtime which event loop owns the current thread. Reading it is one
 * TLS load, so "am I on this loop?" costs no lock and no syscall. */

void *cfiber_current_loop_get(void);
void cfiber_current_loop_set(void *loop);



/* Names the calling thread (Linux keeps the first 15 bytes). */
void cfiber_set_thread_name(const char *name);

/* The number of CPUs this process may run on (sched_getaffinity). */
int cfiber_available_cpus(void);

/* mallopt(M_TOP_PAD, bytes) where glibc has it: 1 on success, 0 otherwise. */
int cfiber_set_malloc_top_pad(int bytes);
#endif
