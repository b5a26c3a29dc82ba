#!/usr/bin/env python3
"""Helpers of Scripts/bench-tls, the TLS client benchmark.

  report_tls.py free-port                  print a free TCP port on 127.0.0.1
  report_tls.py check URL BYTES CA         GET URL once (trusting the PEM file CA for https;
                                           CA may be empty); fail unless 200 with BYTES bytes
  report_tls.py wrk CLIENT C LOG           turn wrk's output in LOG into a BENCH_RESULT line
                                           (with the bytes wrk read)
  report_tls.py record RESULTS WORKLOAD SCHEME CLIENT BODY_BYTES LINE TLS_LOG OFFSET
                                           append LINE (a BENCH_RESULT) to RESULTS with the workload,
                                           and what nginx logged past OFFSET of TLS_LOG: handshakes
                                           resumed, protocol and cipher
  report_tls.py report RESULTS META [--docs PATH]
                                           print the tables; with --docs, rewrite the section
                                           "## TLS" of PATH

Standard library only; shares the wrk parser, the machine description and the
table layout with report.py (Scripts/bench-http).
"""

import collections
import contextlib
import io
import json
import os
import re
import ssl
import sys
import urllib.error
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import report as http_report  # noqa: E402  (report.py of Scripts/bench-http, next to this file)

SECTION_TITLE = "## TLS"

CLIENTS = ["wrk", "go", "ahc", "node", "node-fetch", "fiber", "fiber-api"]
CLIENT_NAMES = {
    "wrk": "wrk (C, load generator)",
    "go": "Go net/http",
    "ahc": "AsyncHTTPClient",
    "node": "Node https",
    "node-fetch": "Node fetch (undici)",
    "fiber": "Fiber (runtime HTTPClient)",
    "fiber-api": "Fiber API (Fiber.get, no interceptors)",
}
WORKLOAD_TITLES = {
    "keepalive": "TLS keep-alive `GET /` (13-byte body), C loops over up to C connections",
    "full": "Full handshakes: a new connection and a full TLS handshake per `GET /handshake`",
    "resumed": "Resumed handshakes: a new connection per `GET /handshake`, session resumption on",
    "bulk": "Bulk download: `GET /big` (100 MiB of random bytes), one connection",
}


# MARK: small commands

def check(url, expected, ca):
    context = ssl.create_default_context(cafile=ca) if ca else None
    handlers = [urllib.request.ProxyHandler({})]
    if context is not None:
        handlers.append(urllib.request.HTTPSHandler(context=context))
    opener = urllib.request.build_opener(*handlers)
    try:
        with opener.open(url, timeout=10) as response:
            status, size = response.status, 0
            while True:
                chunk = response.read(1 << 20)
                if not chunk:
                    break
                size += len(chunk)
    except urllib.error.HTTPError as error:
        status, size = error.code, len(error.read())
    except OSError as error:
        sys.exit(f"bench-tls: GET {url} failed: {error}")
    if status != 200 or size != int(expected):
        sys.exit(f"bench-tls: {url} answered {status} with {size} bytes, expected 200 with {expected}")


_BINARY = {"B": 1, "KB": 1 << 10, "MB": 1 << 20, "GB": 1 << 30, "TB": 1 << 40}


def parse_wrk(client, concurrency, log_path):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        http_report.parse_wrk(client, concurrency, log_path)
    result = json.loads(out.getvalue())
    text = open(log_path, encoding="utf-8", errors="replace").read()
    # "1160 requests in 1.00s, 168.79KB read" (wrk's units are powers of 1024)
    m = re.search(r"requests in [0-9.]+\w+, ([0-9.]+)([KMGT]?B) read", text)
    if m and "failed" not in result:
        result["bytes_read"] = float(m.group(1)) * _BINARY[m.group(2)]
    print(json.dumps(result))


def tls_log_since(path, offset):
    """What nginx logged past `offset`: '$ssl_session_reused $ssl_protocol $ssl_cipher $ssl_curve $status $bytes
    $connection_requests'; `new` counts the requests that were the first on their connection (each had a handshake)."""
    summary = {"logged": 0, "reused": 0, "new": 0}
    try:
        with open(path, "rb") as f:
            f.seek(int(offset))
            lines = f.read().decode("utf-8", "replace").splitlines()
    except OSError:
        return summary
    protocols, ciphers, curves = collections.Counter(), collections.Counter(), collections.Counter()
    for line in lines:
        fields = line.split()
        if len(fields) < 4:
            continue
        summary["logged"] += 1
        summary["reused"] += fields[0] == "r"
        summary["new"] += len(fields) < 7 or fields[6] == "1"
        protocols[fields[1]] += 1
        ciphers[fields[2]] += 1
        curves[fields[3]] += 1
    if summary["logged"]:
        summary["protocol"] = protocols.most_common(1)[0][0]
        summary["cipher"] = ciphers.most_common(1)[0][0]
        summary["curve"] = curves.most_common(1)[0][0]
    return summary


def record(results_path, workload, scheme, client, body_bytes, line, tls_log, offset):
    r = json.loads(line)
    r["client"] = client
    r["workload"] = workload
    r["scheme"] = scheme
    r["body_bytes"] = int(body_bytes)
    if scheme == "https" and workload in ("full", "resumed", "bulk"):
        r["tls_log"] = tls_log_since(tls_log, offset)
    if workload == "bulk" and r.get("seconds"):
        got = r.get("bytes_read") if client == "wrk" else r["requests"] * r["body_bytes"]
        if got is not None:
            r["mb_per_s"] = got / r["seconds"] / 1e6
    with open(results_path, "a", encoding="utf-8") as f:
        f.write(json.dumps(r) + "\n")
    rate = f"{r['mb_per_s']:9.1f} MB/s" if "mb_per_s" in r else f"{r['rps']:9.0f} req/s"
    extra = ""
    log = r.get("tls_log")
    if log and log.get("logged"):
        extra = f"  resumed {log['reused']}/{log['logged']}  {log.get('protocol')} {log.get('cipher')}"
    print(f"bench-tls:   {workload:9} {scheme:5} {client:6} c={r['concurrency']:<4d} {rate}  p50 {r.get('p50_us') or 0:9.1f} µs"
          f"  p99 {r.get('p99_us') or 0:9.1f} µs  errors {r.get('errors', 0)}{extra}", file=sys.stderr)


# MARK: tables

def load_results(path):
    results, failed, skipped = {}, [], {}
    for line in open(path, encoding="utf-8"):
        line = line.strip()
        if not line:
            continue
        r = json.loads(line)
        if "skipped" in r:
            skipped[r["client"]] = r["skipped"]
        elif "failed" in r:
            failed.append(r)
        else:
            results[(r["workload"], r["scheme"], r["client"], r["concurrency"])] = r
    return results, failed, skipped


def ratio(value, reference):
    if value is None or not reference:
        return "–"
    return f"{value / reference:.2f}×"


def alloc_cell(r):
    if r.get("alloc_per_request") is not None:
        kib = r.get("alloc_bytes_per_request")
        return f"{r['alloc_per_request']:,.0f}" + (f" ({kib / 1024:,.0f} KiB)" if kib is not None else "")
    if r.get("go_heap_allocs_per_request") is not None:
        return f"{r['go_heap_allocs_per_request']:,.0f} †"
    return "–"


def resumed_cell(r):
    log = r.get("tls_log")
    if not log or not log.get("logged"):
        return "–"
    return f"{100 * log['reused'] / log['logged']:.0f} % of {log['logged']:,}"


def new_connection_cell(r):
    """The share of requests that opened a connection: under 100 % means the client reused connections,
    and its handshakes/s overstates its handshakes."""
    log = r.get("tls_log")
    if not log or not log.get("logged"):
        return "–"
    return f"{100 * log.get('new', log['logged']) / log['logged']:.0f} %"


def cipher_cell(r):
    log = r.get("tls_log")
    if not log or not log.get("logged"):
        return "–"
    cipher = log.get("cipher", "?").replace("TLS_", "")
    return f"{log.get('protocol', '?').replace('TLSv', '')} {cipher}"


def rate_table(results, failed_at, skipped, meta, workload, concurrencies, clients, with_cipher):
    rows = []
    for c in concurrencies:
        go = results.get((workload, "https", "go", c))
        wrk = results.get((workload, "https", "wrk", c))
        for client in clients:
            if workload == "full" and client == "wrk":
                continue
            if workload != "keepalive" and client == "node-fetch":
                continue
            name = CLIENT_NAMES[client]
            r = results.get((workload, "https", client, c))
            if r is None:
                why = "skipped" if client in skipped else "failed"
                rows.append([str(c), name] + ["–"] * (9 if with_cipher else 6) + [why])
                continue
            row = [str(c), name, http_report.grouped(r["rps"]), ratio(r["rps"], go and go["rps"]),
                   ratio(r["rps"], wrk and wrk["rps"]), http_report.micros(r.get("p50_us")),
                   http_report.micros(r.get("p99_us")), alloc_cell(r)]
            if with_cipher:
                row += [new_connection_cell(r), resumed_cell(r), cipher_cell(r)]
            row.append(http_report.grouped(r["errors"]) if r.get("errors") else "0")
            rows.append(row)
    unit = "req/s" if workload == "keepalive" else "handshakes/s"
    per = "request" if workload == "keepalive" else "handshake"
    header = ["concurrency", "client", unit, "÷ Go", "÷ wrk", "p50 µs", "p99 µs", f"allocations/{per}"]
    if with_cipher:
        header += ["new connection (nginx)", "resumed (nginx)", "TLS, cipher"]
    header.append("errors")
    right = {0, 2, 3, 4, 5, 6, 7, len(header) - 1} | ({8, 9} if with_cipher else set())
    return http_report.markdown_table(header, rows, right)


def bulk_table(results, skipped, clients):
    tls = {c: results.get(("bulk", "https", c, 1)) for c in clients}
    tcp = {c: results.get(("bulk", "http", c, 1)) for c in clients}

    def mb(r):
        return r.get("mb_per_s") if r else None

    rows = []
    for client in clients:
        t, p = tls[client], tcp[client]
        if t is None and p is None:
            rows.append([CLIENT_NAMES[client]] + ["–"] * 9 + ["skipped" if client in skipped else "failed"])
            continue
        rows.append([
            CLIENT_NAMES[client],
            f"{mb(t):,.0f}" if mb(t) else "–", ratio(mb(t), mb(tls.get("go"))), ratio(mb(t), mb(tls.get("wrk"))),
            f"{mb(p):,.0f}" if mb(p) else "–", ratio(mb(p), mb(tcp.get("go"))), ratio(mb(p), mb(tcp.get("wrk"))),
            ratio(mb(t), mb(p)),
            f"{t['requests'] if client != 'wrk' else (t.get('bytes_read', 0) / (100 << 20)):,.1f}" if t else "–",
            cipher_cell(t) if t else "–",
            str((t or {}).get("errors", 0) + (p or {}).get("errors", 0)),
        ])
    return http_report.markdown_table(
        ["client", "TLS MB/s", "÷ Go", "÷ wrk", "TCP MB/s", "÷ Go", "÷ wrk", "TLS ÷ TCP", "TLS downloads timed",
         "TLS, cipher", "errors"],
        rows, right={1, 2, 3, 4, 5, 6, 7, 8, 10},
    )


def section(results, failed, skipped, meta, m, versions):
    clients = [c for c in CLIENTS if c in meta["clients"]]
    failed_at = {(f["workload"], f["scheme"], f["client"], f["concurrency"]): f["failed"] for f in failed}
    options = meta.get("options_note", "")
    nginx_pin = "pinned to CPU 0 (`taskset -c 0`)" if meta["pinned"] else "not pinned"
    client_pin = "pinned to CPU 1 (`taskset -c 1`)" if meta["pinned"] else "not pinned"
    ahc = versions.get("async-http-client", "?")
    nio_ssl = versions.get("swift-nio-ssl", "?")
    openssl = " ".join(http_report._first_line(["openssl", "version"]).split()[:2])
    lines = [
        SECTION_TITLE,
        "",
        f"Measured on {meta['date']} with `Scripts/bench-tls`{(' (`' + options + '`)') if options else ''}.",
        "",
        f"- Machine: {m['online']} CPUs online (`nproc`: {m['nproc']}), {m['model']}, {m['kernel']}",
        f"- Toolchains: {m['swift']} (`-c release`); Go {m['go']}; {m['node']}; TLS libraries: the system's {openssl} (Fiber, wrk), Node's bundled OpenSSL, "
        "BoringSSL (AsyncHTTPClient), Go's crypto/tls",
        f"- Server: nginx {m['nginx'].replace('nginx/', '')}, one worker process, {nginx_pin}; TLS 1.2 and 1.3, "
        "`ssl_session_cache shared:…:10m`, `ssl_session_tickets on`; certificates from `fiber-test-pki` (FiberTesting's `TestPKI`) "
        "(a P-256 leaf for 127.0.0.1 signed by an intermediate, the chain sent, the root trusted by the clients); "
        "plain TCP on a second port with `sendfile on`",
        f"- Clients, one at a time, {client_pin}: {m['wrk']} (`-t 1 -c C`, no verification); Go net/http "
        f"(`GOMAXPROCS=1`, `RootCAs` from the test root); AsyncHTTPClient {ahc} (swift-nio-ssl {nio_ssl}, BoringSSL) "
        "on a one-thread event loop group, `trustRoots = .file(root.pem)`; Node's `https` with "
        "`NODE_EXTRA_CA_CERTS`; Fiber on a one-loop `EventLoopGroup`, `tls.trustRoots = .file(root.pem)`",
        f"- Each cell: {meta['warmup']} s of warm-up (not timed; wrk and the bulk cells have none), then "
        f"{meta['duration']} s or {http_report.grouped(meta['max_requests'])} requests, whichever comes first; "
        f"a bulk cell: one checked download, then at most {meta['bulk_downloads']} timed downloads or "
        f"{meta['duration']} s; one run per cell; the clients run one after the other, so they share the machine's noise",
        f"- Load average (1, 5, 15 min) before the runs: {meta.get('loadavg_before', '?')}; after them: "
        f"{meta.get('loadavg_after', '?')}; the runs took {meta.get('seconds_taken', '?')} s",
        "",
        f"> These numbers come from a shared, noisy {m['online']}-core machine. Read the ratios within this run, "
        "not the absolute numbers; differences under about 20 % are noise, and a single cell can be off by more.",
    ]
    workloads = meta["workloads"]
    if "keepalive" in workloads:
        lines += ["", f"**{WORKLOAD_TITLES['keepalive']}** — allocations on the concurrency-{meta['concurrencies'][0]} "
                  f"rows, over {http_report.grouped(meta['alloc_requests'])} sequential requests.", "",
                  rate_table(results, failed_at, skipped, meta, "keepalive", meta["concurrencies"], clients, False)]
    for w in ("full", "resumed"):
        if w not in workloads:
            continue
        note = ("wrk is absent: it resumes its session on every reconnect." if w == "full" else
                "AsyncHTTPClient keeps no client session cache: its handshakes stay full ones (see the resumed column).")
        lines += ["", f"**{WORKLOAD_TITLES[w]}** — allocations on the concurrency-{meta['handshake_concurrencies'][0]} "
                  f"rows, over {http_report.grouped(meta['handshake_alloc_requests'])} sequential handshakes; "
                  f"*new connection* is the share of the cell's requests that nginx logged as the first on their "
                  f"connection (`$connection_requests` = 1): only at 100 % is every request a handshake; "
                  f"*resumed* is the share of the cell's requests that nginx logged with `$ssl_session_reused` = `r`. "
                  f"{note}", "",
                  rate_table(results, failed_at, skipped, meta, w, meta["handshake_concurrencies"], clients, True)]
    if "bulk" in workloads:
        lines += ["", f"**{WORKLOAD_TITLES['bulk']}** — MB/s is 10⁶ bytes a second of body, over the timed downloads "
                  "(wrk: the bytes it read in its time); the Swift, Go and Node clients stream the body and drop it.", "",
                  bulk_table(results, skipped, clients)]
    notes = []
    for client, why in skipped.items():
        notes.append(f"{CLIENT_NAMES.get(client, client)} skipped: {why}")
    for f in failed:
        notes.append(f"{f['workload']} over {f['scheme']}: {CLIENT_NAMES.get(f['client'], f['client'])} at "
                     f"concurrency {f['concurrency']} failed: {f['failed']}")
    lines += [
        "",
        "How it is measured:",
        "",
        "- The load drivers are those of `Scripts/bench-http` (`HTTPBenchKit`, `peers/go`, `peers/node`) with TLS "
        "options: `--ca` / `-ca`, a new connection per request (`Connection: close` for Fiber and AsyncHTTPClient "
        "and wrk, `DisableKeepAlives` for Go, an `Agent` without keep-alive for Node), no resumption (Fiber "
        "`tls.sessionResumption = false`; Go without `ClientSessionCache`; Node `maxCachedSessions: 0`), resumption "
        "(Fiber's default per-host cache; Go `tls.NewLRUClientSessionCache`; Node's default Agent cache), and a "
        "streamed body (Fiber `client.stream` and its `body` chunks; AsyncHTTPClient's `response.body` buffers; "
        "Go `io.Copy(io.Discard, …)`; Node `data` events) that is counted and dropped.",
        "- Each client negotiates what it prefers; nginx follows the client's cipher order, so the *cipher* column "
        "matters for the bulk numbers (AES-256-GCM costs more per byte than AES-128-GCM). When every client shows "
        "about the same TLS MB/s, the limit is nginx's one worker encrypting on CPU 0, not the clients; the TCP "
        "column (nginx `sendfile`) is where the clients' own receive paths differ.",
        "- A handshake latency is the whole request: connect, handshake, request, response, close. wrk's latencies "
        "leave the connect and the handshake out.",
        "- Allocations: Swift clients, calls to `malloc` & co. in the whole process (OpenSSL's and BoringSSL's "
        "included) counted by `CBenchSupport`; † Go's `runtime.MemStats.Mallocs`, objects of Go's heap, comparable "
        "only roughly; Node's are not measured.",
        "- nginx logs the handshake and bulk requests (one line each, to see resumption, protocol and cipher); "
        "the keep-alive requests are not logged.",
    ]
    if notes:
        lines += [""] + [f"- Note: {n}" for n in notes]
    lines += [
        "",
        "Run it from the repository root:",
        "",
        "```sh",
        "Scripts/bench-tls                           # every workload and client, 5 s a cell; rewrites this section",
        "Scripts/bench-tls --quick                   # 1 s a cell, 3 downloads; writes nothing here",
        "Scripts/bench-tls --workloads full,resumed --clients go,fiber",
        "```",
    ]
    return "\n".join(lines) + "\n"


def update_docs(path, text):
    existing = open(path, encoding="utf-8").read() if os.path.exists(path) else "# Performance\n"
    lines = existing.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    new = text.rstrip("\n").split("\n")
    in_fence, start, end = False, None, None
    for i, line in enumerate(lines):
        if line.startswith("```"):
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        if start is None and line.strip() == SECTION_TITLE:
            start = i
        elif start is not None and end is None and line.startswith("## "):
            end = i
    if start is not None:
        stop = end if end is not None else len(lines)
        lines[start:stop] = new + ([""] if end is not None else [])
    else:
        if lines and lines[-1] != "":
            lines.append("")
        lines += new
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    os.replace(tmp, path)


def make_report(results_path, meta_path, docs):
    meta = json.load(open(meta_path, encoding="utf-8"))
    results, failed, skipped = load_results(results_path)
    m = http_report.machine()
    versions = http_report.package_versions(meta.get("resolved", ""))
    text = section(results, failed, skipped, meta, m, versions)
    print(text)
    if docs:
        update_docs(docs, text)
        print(f'updated the "{SECTION_TITLE}" section of {docs}')


def main(argv):
    if len(argv) >= 1 and argv[0] == "free-port":
        http_report.free_port()
    elif len(argv) == 4 and argv[0] == "check":
        check(argv[1], argv[2], argv[3])
    elif len(argv) == 4 and argv[0] == "wrk":
        parse_wrk(argv[1], argv[2], argv[3])
    elif len(argv) == 9 and argv[0] == "record":
        record(*argv[1:])
    elif len(argv) in (3, 5) and argv[0] == "report":
        docs = argv[4] if len(argv) == 5 and argv[3] == "--docs" else None
        make_report(argv[1], argv[2], docs)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
