#!/usr/bin/env python3
"""An HTTP/2 server for the tests, well-behaved or not, chosen per request by its path.

    h2_peer.py PORT [--cert FILE --key FILE] [--initial-window N]
                    [--max-concurrent-streams N] [--max-frame-size N] [--lifetime S]

Listens on 127.0.0.1:PORT (0: any free port) and prints the port on its first line.
With --cert and --key it speaks TLS and offers ALPN `h2` only; without, h2c with
prior knowledge (the client sends the connection preface at once). The SETTINGS
options apply to every connection (SETTINGS_INITIAL_WINDOW_SIZE, the stream window
a client's uploads start with, e.g. 1..16: each DATA frame's bytes are given back
exactly, so no more than that is ever in flight once the client has the SETTINGS;
SETTINGS_MAX_CONCURRENT_STREAMS: a stream over it is refused with REFUSED_STREAM).

Paths (query parameters in brackets):
  /                        200, "Hello, world!" (13 bytes)
  /bytes/N                 200, N bytes (at most 64 MiB), sent within the client's windows
  /status/N                status N, empty body
  /delay [ms]              200 after ms (default 200, at most 30000)
  /slow [chunks, ms]       200, `chunks` chunks of 1 KiB `ms` apart (defaults 5, 100)
  /echo [read_delay_ms]    200, the request body, with the request's content-type
  /upload [read_delay_ms]  200, JSON {"bytes": n, "frames": k} of the request body;
                           read_delay_ms makes a slow reader (each DATA frame's window
                           is given back that much later)
  /headers                 200, JSON {"headers": [[name, value], ...]} as received,
                           pseudo-headers included, and the body's length
  /trailers [forbidden]    200, a 13-byte body, then trailers x-trailer and x-checksum;
                           forbidden=1 puts host, content-type and set-cookie between them;
                           forbidden=length adds content-length 999
  /goaway [last, code, after]
                           GOAWAY with last_stream_id `last` (default: this stream's id
                           minus 2, so this stream was not processed), error `code`
                           (default 0); with after=headers this stream first gets its
                           headers and half its body. Streams up to `last` are finished,
                           then the connection is closed.
  /rst/refused, /rst/internal, /rst [code, after]
                           RST_STREAM REFUSED_STREAM (7), INTERNAL_ERROR (2) or `code`;
                           after=headers sends the response headers first
  /header-list [count, size]
                           200 with `count` distinct headers (default 10000) or, with
                           `size`, one x-big header of that many bytes (e.g. > 64 KiB)
  /hpack-bomb [count, size]
                           200 with one x-bomb header of `size` bytes (default 4000)
                           repeated `count` times (default 1000): indexed once in the
                           HPACK table, then one byte each on the wire
  /continuation-flood [count, end]
                           raw HEADERS without END_HEADERS, then `count` CONTINUATION
                           frames (default 10000); end=1 ends the block and the stream,
                           otherwise the connection is closed after them
  /ping-flood, /settings-flood, /rst-flood [count]
                           `count` PING, empty SETTINGS or RST_STREAM(CANCEL) frames
                           (default 10000); then the normal 200 (not after rst-flood)
  /http1-headers [header]  200 carrying a connection-specific header, malformed in HTTP/2
                           (RFC 9113 §8.2.2): connection (keep-alive), transfer-encoding
                           (chunked), keep-alive, proxy-connection, upgrade; default the
                           first two
  /hold                    no answer until /release; then 200 "released"
  /release                 releases every held stream; 200, their count
  /stats                   200, JSON {"accepted", "open", "held", "streams"}
Any path takes `once=KEY`: the first request with that KEY misbehaves, later ones get
the plain 200 "Hello, world!" (for a client's retry).

Every request loop is bounded; the process exits by itself after --lifetime seconds
(default 900), and is otherwise stopped by its PID.
"""
import argparse
import asyncio
import json
import ssl
import struct
import sys
from urllib.parse import parse_qs, urlsplit

import h2.config
import h2.connection
import h2.events
import h2.exceptions
import h2.settings

HELLO = b"Hello, world!"
MAX_BYTES = 64 * 1024 * 1024
MAX_COUNT = 1_000_000

# Frame types and flags for the raw frames that h2 would not send (RFC 9113 §6).
DATA, HEADERS, RST_STREAM, SETTINGS, PING, GOAWAY, CONTINUATION = 0, 1, 3, 4, 6, 7, 9
END_STREAM, END_HEADERS = 0x1, 0x4
ERROR_CODES = {"no_error": 0, "protocol": 1, "internal": 2, "flow_control": 3, "refused": 7, "cancel": 8,
               "enhance_your_calm": 11}
HTTP1_HEADERS = {
    "connection": (b"connection", b"keep-alive"),
    "transfer-encoding": (b"transfer-encoding", b"chunked"),
    "keep-alive": (b"keep-alive", b"timeout=5"),
    "proxy-connection": (b"proxy-connection", b"keep-alive"),
    "upgrade": (b"upgrade", b"h2c"),
}


def frame(kind, flags, stream_id, payload=b""):
    """One raw frame: 24-bit length, type, flags, 31-bit stream id, payload."""
    return struct.pack(">I", len(payload))[1:] + bytes([kind, flags]) + struct.pack(">I", stream_id & 0x7FFFFFFF) + payload


def patterned(count):
    block = bytes(range(256)) * 64
    return (block * (count // len(block) + 1))[:count]


class Peer:
    """What all connections share: counters, the held streams, the spent `once` keys."""

    def __init__(self, options):
        self.options = options
        self.accepted = 0
        self.open = 0
        self.streams = 0
        self.held = []  # futures of held streams
        self.spent = set()


class Stream:
    def __init__(self, stream_id, headers):
        self.id = stream_id
        self.headers = headers
        self.body = bytearray()
        self.frames = 0
        self.ended = asyncio.Event()
        self.reset = False
        self.read_delay = 0.0


class Connection:
    def __init__(self, peer, reader, writer):
        self.peer = peer
        self.reader = reader
        self.writer = writer
        config = h2.config.H2Configuration(client_side=False, header_encoding=None, validate_inbound_headers=False)
        self.conn = h2.connection.H2Connection(config=config)
        self.streams = {}
        self.window = asyncio.Event()
        self.closed = False
        self.tasks = set()

    # MARK: I/O

    async def flush(self):
        data = self.conn.data_to_send()
        if data and not self.closed:
            self.writer.write(data)
            await self.writer.drain()

    async def raw(self, *frames):
        """Writes frames past h2's state machine (after what h2 has queued)."""
        await self.flush()
        if not self.closed:
            self.writer.write(b"".join(frames))
            await self.writer.drain()

    def close(self):
        if not self.closed:
            self.closed = True
            self.window.set()
            self.writer.close()

    async def run(self):
        options = self.peer.options
        self.conn.initiate_connection()
        if options.max_frame_size is not None:
            # Applied by h2 once the client acknowledges it (RFC 9113 §6.5.3).
            self.conn.update_settings({h2.settings.SettingCodes.MAX_FRAME_SIZE: options.max_frame_size})
        await self.flush()
        # Raw, and enforced here rather than by h2: h2 would end the connection for a stream over
        # the limit, or for DATA over the window, that a client sent before it saw the SETTINGS.
        # A stream over the limit is refused (REFUSED_STREAM); the tiny window is kept by giving
        # back exactly what each DATA frame used (`give_back`).
        raw_settings = b""
        if options.max_concurrent_streams is not None:
            raw_settings += struct.pack(">HI", 3, options.max_concurrent_streams)
        if options.initial_window is not None:
            raw_settings += struct.pack(">HI", 4, options.initial_window)
        if raw_settings:
            await self.raw(frame(SETTINGS, 0, 0, raw_settings))
        try:
            while not self.closed:
                data = await self.reader.read(65536)
                if not data:
                    break
                try:
                    events = self.conn.receive_data(data)
                except h2.exceptions.ProtocolError:
                    await self.flush()
                    break
                for event in events:
                    self.handle(event)
                await self.flush()
        except (ConnectionError, ssl.SSLError, asyncio.IncompleteReadError):
            pass
        finally:
            self.close()
            for stream in self.streams.values():
                stream.reset = True
                stream.ended.set()
            for task in list(self.tasks):
                task.cancel()

    def handle(self, event):
        if isinstance(event, h2.events.RequestReceived):
            limit = self.peer.options.max_concurrent_streams
            if limit is not None and len(self.streams) >= limit:
                self.conn.reset_stream(event.stream_id, error_code=ERROR_CODES["refused"])
                return
            stream = Stream(event.stream_id, event.headers)
            self.streams[event.stream_id] = stream
            self.peer.streams += 1
            path = dict(event.headers).get(b":path", b"/").decode("latin-1")
            query = parse_qs(urlsplit(path).query)
            stream.read_delay = min(number(query, "read_delay_ms", 0), 30000) / 1000
            if event.stream_ended is not None:
                stream.ended.set()
            task = asyncio.ensure_future(self.respond(stream, path))
            self.tasks.add(task)
            task.add_done_callback(self.tasks.discard)
        elif isinstance(event, h2.events.DataReceived):
            stream = self.streams.get(event.stream_id)
            if stream is not None:
                stream.body += event.data
                stream.frames += 1
                give = self.give_back if self.peer.options.initial_window is not None else self.acknowledge
                if stream.read_delay:
                    asyncio.get_running_loop().call_later(
                        stream.read_delay, give, event.flow_controlled_length, event.stream_id)
                else:
                    give(event.flow_controlled_length, event.stream_id)
            if event.stream_ended is not None and stream is not None:
                stream.ended.set()
        elif isinstance(event, h2.events.StreamEnded):
            stream = self.streams.get(event.stream_id)
            if stream is not None:
                stream.ended.set()
        elif isinstance(event, h2.events.StreamReset):
            stream = self.streams.get(event.stream_id)
            if stream is not None:
                stream.reset = True
                stream.ended.set()
            self.window.set()
        elif isinstance(event, (h2.events.WindowUpdated, h2.events.RemoteSettingsChanged)):
            self.window.set()
        elif isinstance(event, h2.events.ConnectionTerminated):
            self.close()

    def give_back(self, length, stream_id):
        """WINDOW_UPDATE of exactly `length` for the stream and the connection: with the tiny
        window, the client never has more than SETTINGS_INITIAL_WINDOW_SIZE in flight."""
        if self.closed or length == 0:
            return
        try:
            self.conn.increment_flow_control_window(length)
            self.conn.increment_flow_control_window(length, stream_id=stream_id)
        except (h2.exceptions.StreamClosedError, h2.exceptions.ProtocolError):
            pass
        self.schedule_flush()

    def schedule_flush(self):
        task = asyncio.ensure_future(self.flush())
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    def acknowledge(self, length, stream_id):
        if self.closed:
            return
        try:
            self.conn.acknowledge_received_data(length, stream_id)
        except (h2.exceptions.StreamClosedError, h2.exceptions.ProtocolError):
            return
        self.schedule_flush()

    # MARK: Sending

    async def send_headers(self, stream, status, headers=(), end=False):
        self.conn.send_headers(stream.id, [(b":status", str(status).encode())] + list(headers), end_stream=end)
        await self.flush()

    async def send_body(self, stream, data, end=True):
        """Sends `data` within the stream's and the connection's windows, waiting for WINDOW_UPDATE."""
        view = memoryview(data)
        while not self.closed and not stream.reset:
            try:
                allowed = min(self.conn.local_flow_control_window(stream.id), self.conn.max_outbound_frame_size)
            except (h2.exceptions.StreamClosedError, h2.exceptions.ProtocolError):
                return
            if len(view) > 0 and allowed <= 0:
                self.window.clear()
                try:
                    await asyncio.wait_for(self.window.wait(), 30)
                except asyncio.TimeoutError:
                    self.close()
                    return
                continue
            chunk = view[:allowed]
            last = len(chunk) == len(view)
            self.conn.send_data(stream.id, chunk.tobytes(), end_stream=end and last)
            view = view[len(chunk):]
            await self.flush()
            if last:
                return

    async def respond_plain(self, stream, body=HELLO, status=200, content_type=b"text/plain"):
        await self.send_headers(stream, status, [(b"content-type", content_type),
                                                 (b"content-length", str(len(body)).encode())])
        await self.send_body(stream, body)

    async def read_body(self, stream):
        try:
            await asyncio.wait_for(stream.ended.wait(), 60)
        except asyncio.TimeoutError:
            stream.reset = True
        return bytes(stream.body)

    # MARK: Behaviours

    async def respond(self, stream, path):
        parts = urlsplit(path)
        query = parse_qs(parts.query)
        route = parts.path
        once = query.get("once", [None])[0]
        if once is not None:
            if once in self.peer.spent:
                route = "/"
            self.peer.spent.add(once)
        try:
            await self.route(stream, route, query)
        except (ConnectionError, h2.exceptions.StreamClosedError, h2.exceptions.ProtocolError):
            pass
        finally:
            self.streams.pop(stream.id, None)

    async def route(self, stream, route, query):
        count = min(number(query, "count", 10000), MAX_COUNT)
        if route == "/":
            await self.respond_plain(stream)
        elif route.startswith("/bytes/"):
            await self.respond_plain(stream, patterned(min(int(route[7:] or 0), MAX_BYTES)),
                                     content_type=b"application/octet-stream")
        elif route.startswith("/status/"):
            await self.send_headers(stream, int(route[8:]), end=True)
        elif route == "/delay":
            await asyncio.sleep(min(number(query, "ms", 200), 30000) / 1000)
            await self.respond_plain(stream)
        elif route == "/slow":
            await self.send_headers(stream, 200, [(b"content-type", b"application/octet-stream")])
            chunks, delay = min(number(query, "chunks", 5), 1000), min(number(query, "ms", 100), 10000) / 1000
            for index in range(chunks):
                await asyncio.sleep(delay)
                await self.send_body(stream, patterned(1024), end=index == chunks - 1)
        elif route == "/echo":
            body = await self.read_body(stream)
            kind = dict(stream.headers).get(b"content-type", b"application/octet-stream")
            await self.respond_plain(stream, body, content_type=kind)
        elif route == "/upload":
            body = await self.read_body(stream)
            await self.respond_json(stream, {"bytes": len(body), "frames": stream.frames})
        elif route == "/headers":
            body = await self.read_body(stream)
            pairs = [[name.decode("latin-1"), value.decode("latin-1")] for name, value in stream.headers]
            await self.respond_json(stream, {"headers": pairs, "body_bytes": len(body)})
        elif route == "/trailers":
            await self.send_headers(stream, 200, [(b"content-type", b"text/plain")])
            await self.send_body(stream, HELLO, end=False)
            trailers = [(b"x-trailer", b"done"), (b"x-checksum", b"13")]
            forbidden = query.get("forbidden", [""])[0]
            if forbidden == "1":
                # Fields a trailer may not carry (RFC 9110 §6.5.1), between the allowed ones.
                trailers[1:1] = [(b"host", b"elsewhere.example"), (b"content-type", b"text/html"), (b"set-cookie", b"a=b")]
            elif forbidden == "length":
                trailers.append((b"content-length", b"999"))
            self.conn.send_headers(stream.id, trailers, end_stream=True)
            await self.flush()
        elif route == "/goaway":
            await self.goaway(stream, query)
        elif route.startswith("/rst"):
            name = route[5:] or query.get("code", ["internal"])[0]
            code = ERROR_CODES.get(name, None)
            code = int(name) if code is None and name.isdigit() else (2 if code is None else code)
            if query.get("after", [""])[0] == "headers":
                await self.send_headers(stream, 200, [(b"content-type", b"text/plain")])
            self.conn.reset_stream(stream.id, error_code=code)
            await self.flush()
        elif route == "/header-list":
            size = number(query, "size", 0)
            if size:
                headers = [(b"x-big", b"a" * min(size, MAX_BYTES))]
            else:
                headers = [(b"x-h-%d" % index, b"v%d" % index) for index in range(count)]
            await self.send_headers(stream, 200, headers + [(b"content-length", b"13")])
            await self.send_body(stream, HELLO)
        elif route == "/hpack-bomb":
            value = b"b" * min(number(query, "size", 4000), 4000)
            await self.send_headers(stream, 200, [(b"x-bomb", value)] * min(number(query, "count", 1000), MAX_COUNT)
                                    + [(b"content-length", b"13")])
            await self.send_body(stream, HELLO)
        elif route == "/continuation-flood":
            await self.continuation_flood(stream, count, query.get("end", ["0"])[0] == "1")
        elif route == "/ping-flood":
            await self.raw(*(frame(PING, 0, 0, struct.pack(">Q", index)) for index in range(count)))
            await self.respond_plain(stream)
        elif route == "/settings-flood":
            await self.raw(*(frame(SETTINGS, 0, 0) for _ in range(count)))
            await self.respond_plain(stream)
        elif route == "/rst-flood":
            await self.raw(*(frame(RST_STREAM, 0, stream.id, struct.pack(">I", 8)) for _ in range(count)))
        elif route == "/http1-headers":
            await self.http1_headers(stream, query.get("header", [None])[0])
        elif route == "/hold":
            held = asyncio.get_running_loop().create_future()
            self.peer.held.append(held)
            try:
                await asyncio.wait_for(held, 120)
            except asyncio.TimeoutError:
                pass
            finally:  # a stream whose connection went is no longer held
                if held in self.peer.held:
                    self.peer.held.remove(held)
            await self.respond_plain(stream, b"released")
        elif route == "/release":
            held, self.peer.held = self.peer.held, []
            for future in held:
                if not future.done():
                    future.set_result(None)
            await self.respond_plain(stream, str(len(held)).encode())
        elif route == "/stats":
            peer = self.peer
            await self.respond_json(stream, {"accepted": peer.accepted, "open": peer.open,
                                             "held": len(peer.held), "streams": peer.streams})
        else:
            await self.respond_plain(stream, b"not found", status=404)

    async def respond_json(self, stream, value):
        await self.respond_plain(stream, json.dumps(value).encode(), content_type=b"application/json")

    async def goaway(self, stream, query):
        last = number(query, "last", max(stream.id - 2, 0))
        code = number(query, "code", 0)
        if query.get("after", [""])[0] == "headers":
            await self.send_headers(stream, 200, [(b"content-type", b"application/octet-stream"),
                                                  (b"content-length", b"2048")])
            await self.send_body(stream, patterned(1024), end=False)
        # Raw, so that h2 goes on serving the streams up to `last`.
        await self.raw(frame(GOAWAY, 0, 0, struct.pack(">II", last & 0x7FFFFFFF, code)))
        for _ in range(500):  # at most 5 s for the streams it promised to finish
            if not any(other <= last for other in self.streams if other != stream.id):
                break
            await asyncio.sleep(0.01)
        self.close()

    async def continuation_flood(self, stream, count, end):
        # :status 200 (static index 8), then "x-f: y" literals without indexing, one per CONTINUATION.
        literal = b"\x00\x03x-f\x01y"
        frames = [frame(HEADERS, 0, stream.id, b"\x88")]
        frames += [frame(CONTINUATION, END_HEADERS if end and index == count - 1 else 0, stream.id, literal)
                   for index in range(count)]
        if end:
            frames.append(frame(DATA, END_STREAM, stream.id, HELLO))
        await self.raw(*frames)
        if not end:
            await asyncio.sleep(0.2)
            self.close()

    async def http1_headers(self, stream, which):
        chosen = [HTTP1_HEADERS[which]] if which in HTTP1_HEADERS else \
            [HTTP1_HEADERS["connection"], HTTP1_HEADERS["transfer-encoding"]]
        config = self.conn.config
        # h2 strips and refuses these itself: a misbehaving server turns that off for this block only.
        config.normalize_outbound_headers, config.validate_outbound_headers = False, False
        try:
            await self.send_headers(stream, 200, [(b"content-type", b"text/plain")] + chosen)
        finally:
            config.normalize_outbound_headers, config.validate_outbound_headers = True, True
        await self.send_body(stream, HELLO)


def number(query, name, default):
    try:
        return max(int(query.get(name, [default])[0]), 0)
    except ValueError:
        return default


async def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("port", type=int)
    parser.add_argument("--cert")
    parser.add_argument("--key")
    parser.add_argument("--initial-window", type=int)
    parser.add_argument("--max-concurrent-streams", type=int)
    parser.add_argument("--max-frame-size", type=int)
    parser.add_argument("--lifetime", type=float, default=900)
    options = parser.parse_args()
    context = None
    if options.cert:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(options.cert, options.key or options.cert)
        context.set_alpn_protocols(["h2"])
    peer = Peer(options)

    async def accept(reader, writer):
        peer.accepted += 1
        peer.open += 1
        try:
            await Connection(peer, reader, writer).run()
        finally:
            peer.open -= 1

    server = await asyncio.start_server(accept, "127.0.0.1", options.port, ssl=context)
    print(server.sockets[0].getsockname()[1], flush=True)
    try:
        await asyncio.wait_for(server.serve_forever(), options.lifetime)
    except asyncio.TimeoutError:
        pass


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        sys.exit(0)
