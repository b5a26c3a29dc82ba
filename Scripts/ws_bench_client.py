#!/usr/bin/env python3
"""Python `websockets` echo client for Scripts/bench-websocket: the same loop as
WebSocketBench's echo mode (send a SIZE-byte binary message, await its echo).

usage: ws_bench_client.py URL SIZE CONNECTIONS SECONDS
"""
import asyncio
import sys
import time

from websockets.asyncio.client import connect


async def worker(url, payload, deadline):
    count = 0
    async with connect(url, compression=None, max_size=None, ping_interval=None) as ws:
        while time.monotonic() < deadline:
            await ws.send(payload)
            reply = await ws.recv()
            if len(reply) != len(payload):
                break
            count += 1
    return count


async def main():
    url, size, connections, seconds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
    payload = b"a" * size
    start = time.monotonic()
    counts = await asyncio.gather(*(worker(url, payload, start + seconds) for _ in range(connections)))
    elapsed = time.monotonic() - start
    total = sum(counts)
    print(f"echo size={size} connections={connections} messages={total} seconds={elapsed:.2f} msgs_per_second={total / elapsed:.0f}")


asyncio.run(main())
