#!/usr/bin/env python3
"""A SOCKS5 proxy (RFC 1928, RFC 1929) for the tests, on 127.0.0.1.

Usage: socks5_peer.py PORT [--user NAME --password SECRET] [--behavior B] [--log FILE]

Prints its port on the first line. With --user it requires username/password
authentication. It resolves names itself, relays to the destination, and
appends one line per CONNECT to --log: "ATYP HOST PORT" (ATYP 1, 3 or 4).

Behaviors, to test a client against a proxy that misbehaves:
  relay           (default) a working proxy
  bad-version     answers the greeting with version 4
  refuse          replies 5 (connection refused) to every CONNECT
  close-greeting  closes the connection after reading the greeting
  close-auth      closes the connection after reading the credentials
  silent          reads the greeting and never answers
  trailing        sends a byte after its successful reply
"""
import argparse
import select
import socket
import sys
import threading


def read_exactly(conn, n):
    data = b""
    while len(data) < n:
        chunk = conn.recv(n - len(data))
        if not chunk:
            raise ConnectionError("closed")
        data += chunk
    return data


def relay(a, b):
    sockets = [a, b]
    try:
        while True:
            readable, _, _ = select.select(sockets, [], [], 30)
            if not readable:
                return
            for s in readable:
                data = s.recv(65536)
                if not data:
                    return
                (b if s is a else a).sendall(data)
    finally:
        a.close()
        b.close()


def serve(conn, args, log_lock):
    try:
        version, count = read_exactly(conn, 2)
        methods = read_exactly(conn, count)
        if args.behavior == "close-greeting":
            conn.close()
            return
        if args.behavior == "silent":
            select.select([conn], [], [], 60)
            conn.close()
            return
        if args.behavior == "bad-version":
            conn.sendall(bytes([4, 0]))
            conn.close()
            return
        if args.user is not None:
            if 2 not in methods:
                conn.sendall(bytes([5, 0xFF]))
                conn.close()
                return
            conn.sendall(bytes([5, 2]))
            _, ulen = read_exactly(conn, 2)
            user = read_exactly(conn, ulen).decode()
            (plen,) = read_exactly(conn, 1)
            password = read_exactly(conn, plen).decode()
            if args.behavior == "close-auth":
                conn.close()
                return
            ok = user == args.user and password == args.password
            conn.sendall(bytes([1, 0 if ok else 1]))
            if not ok:
                conn.close()
                return
        else:
            conn.sendall(bytes([5, 0]))
        _, command, _, atyp = read_exactly(conn, 4)
        if atyp == 1:
            host = socket.inet_ntop(socket.AF_INET, read_exactly(conn, 4))
        elif atyp == 4:
            host = socket.inet_ntop(socket.AF_INET6, read_exactly(conn, 16))
        elif atyp == 3:
            (length,) = read_exactly(conn, 1)
            host = read_exactly(conn, length).decode()
        else:
            conn.close()
            return
        port = int.from_bytes(read_exactly(conn, 2), "big")
        if args.log:
            with log_lock, open(args.log, "a") as f:
                f.write(f"{atyp} {host} {port}\n")
        if args.behavior == "refuse" or command != 1:
            conn.sendall(bytes([5, 5 if command == 1 else 7, 0, 1, 0, 0, 0, 0, 0, 0]))
            conn.close()
            return
        try:
            upstream = socket.create_connection((host, port), timeout=10)
            upstream.settimeout(None)
        except OSError:
            conn.sendall(bytes([5, 5, 0, 1, 0, 0, 0, 0, 0, 0]))
            conn.close()
            return
        reply = bytes([5, 0, 0, 1, 127, 0, 0, 1]) + upstream.getsockname()[1].to_bytes(2, "big")
        # In the same write as the reply, so that the client reads them together.
        conn.sendall(reply + (b"x" if args.behavior == "trailing" else b""))
        relay(conn, upstream)
    except (ConnectionError, OSError):
        conn.close()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("port", type=int)
    parser.add_argument("--user")
    parser.add_argument("--password")
    parser.add_argument("--behavior", default="relay")
    parser.add_argument("--log")
    args = parser.parse_args()
    listener = socket.create_server(("127.0.0.1", args.port))
    print(listener.getsockname()[1], flush=True)
    log_lock = threading.Lock()
    while True:
        conn, _ = listener.accept()
        threading.Thread(target=serve, args=(conn, args, log_lock), daemon=True).start()


if __name__ == "__main__":
    sys.exit(main())
