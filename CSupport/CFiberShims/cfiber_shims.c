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

/* Netlink (NETLINK_ROUTE) for the connection monitor: opening the socket,
 * inside a named network namespace when asked, sending dump requests and
 * receiving. Parsing stays in Swift (FiberRuntime/Netlink). */

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

static int cfiber_netlink_open_here(uint32_t groups, int *error) {
    int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, NETLINK_ROUTE);
    if (fd < 0) { *error = errno; return -1; }
    /* A larger receive buffer makes an overrun (ENOBUFS) rarer; best effort. */
    int size = 1 << 20;
    (void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof size);
    struct sockaddr_nl local;
    memset(&local, 0, sizeof local);
    local.nl_family = AF_NETLINK;
    local.nl_groups = groups;
    if (bind(fd, (struct sockaddr *)&local, sizeof local) != 0) {
        *error = errno;
        close(fd);
        return -1;
    }
    return fd;
}

struct cfiber_netns_open {
    const char *path;
    uint32_t groups;
    int fd;
    int error;
};

/* Runs on a thread of its own: setns changes only the calling thread's
 * network namespace, and the thread ends right after, so no other thread
 * of the process ever runs in the namespace. */
static void *cfiber_netlink_open_in_namespace(void *argument) {
    struct cfiber_netns_open *job = argument;
    int ns = open(job->path, O_RDONLY | O_CLOEXEC);
    if (ns < 0) { job->error = errno; job->fd = -1; return NULL; }
    if (setns(ns, CLONE_NEWNET) != 0) {
        job->error = errno;
        job->fd = -1;
        close(ns);
        return NULL;
    }
    close(ns);
    job->fd = cfiber_netlink_open_here(job->groups, &job->error);
    return NULL;
}

int cfiber_netlink_open(const char *namespace_path, uint32_t groups, int *error, int *failed_step) {
    *error = 0;
    *failed_step = 0;
    if (namespace_path == NULL) {
        int fd = cfiber_netlink_open_here(groups, error);
        if (fd < 0) *failed_step = 1;
        return fd;
    }
    struct cfiber_netns_open job = { namespace_path, groups, -1, 0 };
    pthread_t thread;
    int status = pthread_create(&thread, NULL, cfiber_netlink_open_in_namespace, &job);
    if (status != 0) { *error = status; *failed_step = 3; return -1; }
    pthread_join(thread, NULL);
    if (job.fd < 0) {
        *error = job.error;
        *failed_step = job.error == 0 ? 1 : 2;
    }
    return job.fd;
}

int cfiber_netlink_request_dump(int fd, uint16_t type, uint32_t sequence) {
    /* The largest family header of the three dumps (ifinfomsg), zeroed:
     * AF_UNSPEC, every interface, every table. */
    struct {
        struct nlmsghdr header;
        struct ifinfomsg body;
    } request;
    memset(&request, 0, sizeof request);
    size_t body = type == RTM_GETADDR ? sizeof(struct ifaddrmsg)
                : type == RTM_GETROUTE ? sizeof(struct rtmsg) : sizeof(struct ifinfomsg);
    request.header.nlmsg_len = NLMSG_LENGTH(body);
    request.header.nlmsg_type = type;
    request.header.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
    request.header.nlmsg_seq = sequence;
    struct sockaddr_nl kernel;
    memset(&kernel, 0, sizeof kernel);
    kernel.nl_family = AF_NETLINK;
    ssize_t sent;
    do {
        sent = sendto(fd, &request, request.header.nlmsg_len, 0, (struct sockaddr *)&kernel, sizeof kernel);
    } while (sent < 0 && errno == EINTR);
    return sent < 0 ? -errno : 0;
}

long cfiber_netlink_receive(int fd, void *buffer, unsigned long capacity) {
    struct sockaddr_nl from;
    struct iovec vector = { buffer, capacity };
    struct msghdr message;
    memset(&message, 0, sizeof message);
    message.msg_name = &from;
    message.msg_namelen = sizeof from;
    message.msg_iov = &vector;
    message.msg_iovlen = 1;
    ssize_t received;
    do {
        received = recvmsg(fd, &message, MSG_DONTWAIT);
    } while (received < 0 && errno == EINTR);
    if (received < 0) return -errno;
    /* Only the kernel (port 0) speaks for the routing tables. */
    if (message.msg_namelen < sizeof from || from.nl_pid != 0) return 0;
    /* A truncated datagram is dropped whole rather than half-parsed. */
    if (message.msg_flags & MSG_TRUNC) return 0;
    return (long)received;
}

int cfiber_netlink_close(int fd) { return close(fd); }
