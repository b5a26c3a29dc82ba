#!/usr/bin/env python3
"""A Python `websockets` echo server for Fiber's interop tests and benchmark.

Listens on 127.0.0.1 at a free port (or argv[1]), prints the port on one
line, and serves until killed. Paths: / echoes every message; /close4000
closes at once with 4000 "python says bye"; /subprotocol picks "chat.v2".
"""
import asyncio
import sys

from websockets.asyncio.server import serve


async def handler(ws):
    path = ws.request.path
    if path == "/close4000":
        await ws.close(4000, "python says bye")
        return
    async for message in ws:
        await ws.send(message)


async def main():
    port = int(sys.argv[1]) if len(sys.argv) > 1 else 0
    async with serve(handler, "127.0.0.1", port, subprotocols=["chat.v2"] if "--subprotocol" in sys.argv else None,
                     max_size=64 * 1024 * 1024, ping_interval=None) as server:
        print(server.sockets[0].getsockname()[1], flush=True)
        await asyncio.Future()


asyncio.run(main())
