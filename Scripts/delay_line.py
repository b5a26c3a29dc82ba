#!/usr/bin/env python3
"""A delay line between two network namespaces, for the fault matrix.

Each namespace holds one TUN device; this process attaches to both and
carries every IP packet from one to the other after a fixed delay. With
--reorder P, each packet has a P % chance of skipping the delay, so it
overtakes the packets held before it: the same faults as netem's `delay`
and `reorder`, for kernels built without netem.

    delay_line.py CLIENT_NETNS CLIENT_TUN SERVER_NETNS SERVER_TUN \
        --delay-ms 50 [--reorder 25] [--limit 10000] [--seed 1]

Prints `ready` once both devices are attached. Runs until SIGTERM (or
until its parent dies), then prints what it carried. A packet that
arrives while `--limit` packets are held is dropped, as a full queue
drops it.
"""

import argparse
import ctypes
import fcntl
import heapq
import os
import random
import select
import signal
import struct
import sys
import time

TUNSETIFF = 0x400454CA
IFF_TUN = 0x0001
IFF_NO_PI = 0x1000
CLONE_NEWNET = 0x40000000
PR_SET_PDEATHSIG = 1

libc = ctypes.CDLL(None, use_errno=True)


def enter_namespace(name):
    """Moves this (single-threaded) process into the network namespace `name`."""
    fd = os.open(f"/run/netns/{name}", os.O_RDONLY | os.O_CLOEXEC)
    try:
        if libc.setns(fd, CLONE_NEWNET) != 0:
            error = ctypes.get_errno()
            raise OSError(error, f"setns {name}: {os.strerror(error)}")
    finally:
        os.close(fd)


def attach(namespace, device):
    """Opens the existing TUN `device` of `namespace`; returns its non-blocking file descriptor."""
    enter_namespace(namespace)
    fd = os.open("/dev/net/tun", os.O_RDWR | os.O_NONBLOCK | os.O_CLOEXEC)
    fcntl.ioctl(fd, TUNSETIFF, struct.pack("16sH", device.encode(), IFF_TUN | IFF_NO_PI))
    return fd


class Stop(Exception):
    pass


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("client_netns")
    parser.add_argument("client_tun")
    parser.add_argument("server_netns")
    parser.add_argument("server_tun")
    parser.add_argument("--delay-ms", type=float, required=True)
    parser.add_argument("--reorder", type=float, default=0.0, help="percent of packets sent without the delay")
    parser.add_argument("--limit", type=int, default=10000, help="packets held at most")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    # Dies with the test that started it, even if that one is killed.
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)

    def stop(_signal, _frame):
        raise Stop()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)

    client = attach(args.client_netns, args.client_tun)
    server = attach(args.server_netns, args.server_tun)
    other = {client: server, server: client}
    delay = args.delay_ms / 1000.0
    reorder = args.reorder / 100.0
    chance = random.Random(args.seed)
    print("ready", flush=True)

    held = []  # (release time, sequence, output fd, packet); the sequence keeps equal times in arrival order
    sequence = 0
    carried = overtook = dropped = 0
    try:
        while True:
            timeout = max(0.0, held[0][0] - time.monotonic()) if held else None
            readable, _, _ = select.select([client, server], [], [], timeout)
            now = time.monotonic()
            for fd in readable:
                for _ in range(256):
                    try:
                        packet = os.read(fd, 65536)
                    except (BlockingIOError, InterruptedError):
                        break
                    if len(held) >= args.limit:
                        dropped += 1
                        continue
                    release = now + delay
                    if reorder and chance.random() < reorder:
                        release = now
                        overtook += 1
                    heapq.heappush(held, (release, sequence, other[fd], packet))
                    sequence += 1
            now = time.monotonic()
            while held and held[0][0] <= now:
                _, _, fd, packet = heapq.heappop(held)
                try:
                    os.write(fd, packet)
                    carried += 1
                except OSError:
                    dropped += 1  # the device is down or its queue is full: lost, as on a wire
    except Stop:
        pass
    finally:
        print(f"carried {carried} packets, {overtook} sent without the delay, {dropped} dropped", flush=True)


if __name__ == "__main__":
    sys.exit(main())
