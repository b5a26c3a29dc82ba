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

/* Netlink (NETLINK_ROUTE) for the connection monitor. */
#include <stdint.h>

/* Multicast groups of NETLINK_ROUTE (RTMGRP_*), for `groups`. */
#define CFIBER_RTMGRP_LINK 0x1
#define CFIBER_RTMGRP_IPV4_IFADDR 0x10
#define CFIBER_RTMGRP_IPV4_ROUTE 0x40
#define CFIBER_RTMGRP_IPV6_IFADDR 0x100
#define CFIBER_RTMGRP_IPV6_ROUTE 0x400

/* A non-blocking, close-on-exec NETLINK_ROUTE socket bound to `groups`.
 * With `namespace_path` (e.g. /var/run/netns/NAME) the socket is created
 * inside that network namespace, on a short-lived thread of its own, and
 * stays bound to it. Returns the descriptor, or -1 with `*error` the errno
 * and `*failed_step` 1 (socket/bind), 2 (opening or entering the namespace)
 * or 3 (starting the helper thread). */
int cfiber_netlink_open(const char *namespace_path, uint32_t groups, int *error, int *failed_step);

/* Sends a dump request (RTM_GETLINK, RTM_GETADDR or RTM_GETROUTE, every
 * family) numbered `sequence`. Returns 0, or -errno. */
int cfiber_netlink_request_dump(int fd, uint16_t type, uint32_t sequence);

/* Receives one datagram without blocking. Returns its length, 0 for a
 * datagram to ignore (not from the kernel, or truncated), or -errno
 * (-EAGAIN: nothing waiting; -ENOBUFS: the kernel dropped messages). */
long cfiber_netlink_receive(int fd, void *buffer, unsigned long capacity);

/* close(2). */
int cfiber_netlink_close(int fd);
#endif
