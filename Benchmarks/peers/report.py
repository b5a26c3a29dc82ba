#!/usr/bin/env python3
"""Helpers of Scripts/bench-http, the HTTP/1.1 client benchmark.

  report.py free-port                      print a free TCP port on 127.0.0.1
  report.py check URL BYTES                GET URL once; fail unless 200 with a body of BYTES bytes
  report.py wrk CLIENT C LOG               turn wrk's output in LOG into a BENCH_RESULT line
  report.py json-body FILE                 write the ~1 KiB JSON body nginx serves at /json (the same
                                           bytes every run; Scripts/bench-http and Scripts/bench-tls)
  report.py tag RESULTS OUT KEY=VALUE...   append the lines of RESULTS to OUT, each with the fields
                                           KEY=VALUE it does not have yet (Scripts/bench-all's --results)
  report.py report RESULTS META [--docs PATH]
                                           print the tables; with --docs, rewrite the section
                                           "## HTTP/1.1 keep-alive GET" of PATH

RESULTS holds one JSON object a line: the BENCH_RESULT of a client, or
{"client", "concurrency", "failed": why} / {"client", "skipped": why}.
META is a JSON object with the run's settings, written by the script.
Standard library only.
"""

import json
import os
import platform
import re
import socket
import subprocess
import sys
import urllib.error
import urllib.request

SECTION_TITLE = "## HTTP/1.1 keep-alive GET"

# The order of the clients in every table, as they run.
CLIENTS = ["wrk", "go", "node-http", "node-fetch", "ahc", "fiber", "fiber-api"]
CLIENT_NAMES = {
    "wrk": "wrk (C, load generator)",
    "go": "Go net/http",
    "node-http": "Node http + keep-alive Agent",
    "node-fetch": "Node fetch (undici)",
    "ahc": "AsyncHTTPClient",
    "fiber": "Fiber (runtime HTTPClient)",
    "fiber-api": "Fiber API (Fiber.get, no interceptors)",
}


# MARK: small commands

def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        print(s.getsockname()[1])


def check(url, expected):
    # No proxy, whatever the environment says: the target is local.
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(url, timeout=5) as response:
            status, body = response.status, response.read()
    except urllib.error.HTTPError as error:
        status, body = error.code, error.read()
    except OSError as error:
        sys.exit(f"bench-http: GET {url} failed: {error}")
    if status != 200 or len(body) != int(expected):
        sys.exit(f"bench-http: {url} answered {status} with {len(body)} bytes, expected 200 with {expected}")


_UNITS = {"us": 1.0, "ms": 1e3, "s": 1e6, "m": 60e6, "h": 3600e6}


def _micros(text):
    m = re.fullmatch(r"([0-9.]+)(us|ms|s|m|h)", text.strip())
    if not m:
        raise ValueError(f"not a wrk duration: {text!r}")
    return float(m.group(1)) * _UNITS[m.group(2)]


def parse_wrk(client, concurrency, log_path):
    """wrk --latency prints, among others:
         Latency Distribution
            50%   43.00us
            ...
            99%  120.00us
         123456 requests in 5.00s, 14.36MB read
         Socket errors: connect 0, read 0, write 0, timeout 0
         Non-2xx or 3xx responses: 12
       Requests/sec:  24690.71
    """
    text = open(log_path, encoding="utf-8", errors="replace").read()
    result = {"client": client, "concurrency": int(concurrency)}
    m = re.search(r"^\s*(\d+) requests in ([0-9.]+)(us|ms|s|m|h),", text, re.M)
    rps = re.search(r"^Requests/sec:\s*([0-9.]+)", text, re.M)
    p50 = re.search(r"^\s*50%\s+(\S+)", text, re.M)
    p99 = re.search(r"^\s*99%\s+(\S+)", text, re.M)
    if not (m and rps and p50 and p99):
        result["failed"] = "could not parse wrk's output"
        print(json.dumps(result))
        return
    errors = 0
    sock = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", text)
    if sock:
        errors += sum(int(x) for x in sock.groups())
    non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", text)
    if non2xx:
        errors += int(non2xx.group(1))
    result.update({
        "requests": int(m.group(1)),
        "errors": errors,
        "seconds": _micros(m.group(2) + m.group(3)) / 1e6,
        "rps": float(rps.group(1)),
        "p50_us": _micros(p50.group(1)),
        "p99_us": _micros(p99.group(1)),
    })
    print(json.dumps(result))


def json_body(path):
    # About 1 KiB of JSON, the same every run.
    items = [{"id": i, "name": f"item-{i:03d}", "active": i % 2 == 0, "score": round(i * 1.25, 2)} for i in range(16)]
    text = json.dumps({"status": "ok", "count": len(items), "items": items}, separators=(",", ":"))
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def tag(results_path, out_path, pairs):
    fields = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            sys.exit(f"tag: not KEY=VALUE: {pair!r}")
        fields[key] = value
    with open(results_path, encoding="utf-8") as f, open(out_path, "a", encoding="utf-8") as out:
        for line in f:
            line = line.strip()
            if not line:
                continue
            r = json.loads(line)
            for key, value in fields.items():
                r.setdefault(key, value)
            out.write(json.dumps(r) + "\n")


# MARK: the machine

def _first_line(command):
    try:
        out = subprocess.run(command, capture_output=True, text=True, timeout=20)
        text = (out.stdout + out.stderr).strip()
        return text.splitlines()[0].strip() if text else "unknown"
    except (OSError, subprocess.SubprocessError):
        return "not installed"


def machine():
    model = "unknown"
    try:
        for line in open("/proc/cpuinfo", encoding="utf-8"):
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    nginx = _first_line(["nginx", "-v"]).replace("nginx version: ", "")
    wrk = _first_line(["wrk", "--version"])
    wrk = re.sub(r"\s*\[.*", "", wrk).replace("wrk debian/", "wrk ")
    swift = _first_line(["swift", "--version"])
    go = _first_line(["go", "version"]).replace("go version go", "").split(" ")[0]
    node = _first_line(["node", "--version"])
    undici = _first_line(["node", "-p", "process.versions.undici"])
    return {
        "online": os.cpu_count(),
        "nproc": _first_line(["nproc"]),
        "model": model,
        "kernel": f"{platform.system()} {platform.release()}",
        "swift": swift,
        "go": go,
        "node": f"Node {node}",
        "nginx": nginx,
        "wrk": wrk,
        "undici": undici,
    }


def package_versions(resolved_path):
    versions = {}
    try:
        for pin in json.load(open(resolved_path, encoding="utf-8")).get("pins", []):
            versions[pin["identity"]] = pin.get("state", {}).get("version") or pin.get("state", {}).get("revision", "?")[:10]
    except (OSError, ValueError, KeyError):
        pass
    return versions


# MARK: tables

def grouped(value):
    return f"{value:,.0f}"


def micros(value):
    if value is None:
        return "–"
    return f"{value:,.0f}" if value >= 1000 else f"{value:.1f}"


def markdown_table(header, rows, right):
    widths = [max(len(str(r[i])) for r in [header] + rows) for i in range(len(header))]

    def line(cells):
        out = []
        for i, cell in enumerate(cells):
            cell = str(cell)
            pad = " " * (widths[i] - len(cell))
            out.append(pad + cell if i in right else cell + pad)
        return "| " + " | ".join(out) + " |"

    rule = "|" + "|".join(
        ("-" + "-" * max(widths[i], 3) + ":") if i in right else ("-" + "-" * max(widths[i], 3) + "-")
        for i in range(len(header))
    ) + "|"
    return "\n".join([line(header), rule] + [line(r) for r in rows])


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
            results[(r["client"], r["concurrency"])] = r
    return results, failed, skipped


def alloc_cell(r):
    if r.get("alloc_per_request") is not None:
        return f"{r['alloc_per_request']:.1f}"
    if r.get("go_heap_allocs_per_request") is not None:
        return f"{r['go_heap_allocs_per_request']:.1f} †"
    return "–"


def tables(results, failed, skipped, meta):
    concurrencies = meta["concurrencies"]
    clients = [c for c in CLIENTS if c in meta["clients"]]
    failed_at = {(f["client"], f["concurrency"]): f["failed"] for f in failed}
    rows = []
    for c in concurrencies:
        for client in clients:
            name = CLIENT_NAMES[client]
            r = results.get((client, c))
            if r is None:
                why = skipped.get(client) and "skipped" or failed_at.get((client, c), "no result")
                rows.append([str(c), name, "–", "–", "–", "–", "–", why if why == "skipped" else "failed"])
                continue
            rows.append([
                str(c), name, grouped(r["requests"]), grouped(r["rps"]) if r.get("rps") is not None else "–",
                micros(r.get("p50_us")), micros(r.get("p99_us")), alloc_cell(r),
                grouped(r["errors"]) if r.get("errors") else "0",
            ])
    main = markdown_table(
        ["concurrency", "client", "requests", "req/s", "p50 µs", "p99 µs", "allocations/request", "errors"],
        rows, right={0, 2, 3, 4, 5, 6, 7},
    )

    ratio_c = 64 if 64 in concurrencies else concurrencies[-1]
    fiber = results.get(("fiber", ratio_c))
    ratio_rows = []
    for client in clients:
        r = results.get((client, ratio_c))
        if r is None or r.get("rps") is None:
            continue

        def ratio(key):
            if fiber is None or not fiber.get(key) or r.get(key) is None:
                return "n/a"
            return f"{r[key] / fiber[key]:.2f}×"

        ratio_rows.append([CLIENT_NAMES[client], grouped(r["rps"]), ratio("rps"), micros(r.get("p50_us")), ratio("p50_us"),
                           micros(r.get("p99_us")), ratio("p99_us")])
    ratios = markdown_table(
        ["client", "req/s", "req/s ÷ Fiber's", "p50 µs", "p50 ÷ Fiber's", "p99 µs", "p99 ÷ Fiber's"],
        ratio_rows, right={1, 2, 3, 4, 5, 6},
    )
    return main, ratio_c, fiber is not None, ratios


def section(results, failed, skipped, meta, m, versions):
    main, ratio_c, have_fiber, ratios = tables(results, failed, skipped, meta)
    options = meta.get("options_note", "")
    nginx_pin = "pinned to CPU 0 (`taskset -c 0`)" if meta["pinned"] else "not pinned"
    client_pin = "pinned to CPU 1 (`taskset -c 1`)" if meta["pinned"] else "not pinned"
    ahc = versions.get("async-http-client", "?")
    nio = versions.get("swift-nio", "?")
    lines = [
        SECTION_TITLE,
        "",
        f"Measured on {meta['date']} with `Scripts/bench-http`{(' (`' + options + '`)') if options else ''}.",
        "",
        f"- Machine: {m['online']} CPUs online (`nproc`: {m['nproc']}), {m['model']}, {m['kernel']}",
        f"- Toolchains: {m['swift']} (`-c release`); Go {m['go']}; {m['node']}",
        f"- Server: nginx {m['nginx'].replace('nginx/', '')}, one worker process, {nginx_pin}; `GET /` answers 200 with "
        f"the {meta['body_bytes']}-byte body `Hello, world!` (`return 200`), access log off, keep-alive without a request limit",
        f"- Clients, one at a time, {client_pin}: {m['wrk']} (`-t 1 -c C --latency`); Go net/http "
        f"(`GOMAXPROCS=1`); Node's `http` with a keep-alive `Agent` and its built-in `fetch` (undici {m['undici']}); "
        f"AsyncHTTPClient {ahc} (SwiftNIO {nio}) on a one-thread event loop group; Fiber on a one-loop `EventLoopGroup`",
        f"- Each cell: {meta['warmup']} s of warm-up (not timed; wrk has none), then {meta['duration']} s "
        f"or {grouped(meta['max_requests'])} requests, whichever comes first; one run per cell; for each concurrency "
        f"the clients run one after the other in the order of the table, so they share the machine's noise",
        f"- Load average (1, 5, 15 min) before the runs: {meta.get('loadavg_before', '?')}; after them: "
        f"{meta.get('loadavg_after', '?')} (the benchmark itself keeps both cores busy; anything above 0 before it is "
        f"other work); the runs took {meta.get('seconds_taken', '?')} s",
        "",
        f"> These numbers come from a shared, noisy {m['online']}-core machine (other work runs beside it, and "
        "server and client get one core each). Read them as orders of magnitude and compare runs made on the same "
        "machine; differences under about 20 % are noise, and a single cell can be off by more.",
        "",
        f"**Keep-alive `GET /`, C concurrent request loops over up to C connections** — one run per cell; "
        f"allocations/request on the concurrency-{meta['alloc_concurrency']} rows, measured in a separate run "
        f"of {grouped(meta['alloc_requests'])} sequential requests.",
        "",
        main,
        "",
        f"**At concurrency {ratio_c}, relative to Fiber** — a req/s ratio above 1 or a latency ratio below 1 "
        "means the client did better than Fiber.",
        "",
    ]
    if have_fiber:
        lines += [ratios]
    else:
        lines += [f"No ratios: Fiber has no result at concurrency {ratio_c} ({skipped.get('fiber', 'it failed')})."]
        lines += ["", ratios]
    notes = []
    for client, why in skipped.items():
        notes.append(f"{CLIENT_NAMES.get(client, client)} skipped: {why}")
    for f in failed:
        notes.append(f"{CLIENT_NAMES.get(f['client'], f['client'])} at concurrency {f['concurrency']} failed: {f['failed']}")
    lines += [
        "",
        "How it is measured:",
        "",
        "- Every client sends `GET /` on persistent HTTP/1.1 connections and reads the whole body; C loops (goroutines, "
        "async functions, Swift tasks) each send one request after the other, and the pool may open C connections "
        "(Go: `MaxConnsPerHost` and `MaxIdleConnsPerHost` = C; Node http: `maxSockets` = C; fetch: "
        "an undici `Agent({ connections: C })` as the global dispatcher, since the default one has no limit and "
        "opened 2 C connections at C = 64; AsyncHTTPClient: `concurrentHTTP1ConnectionsPerHostSoftLimit` = C; "
        "Fiber: `maxConnectionsPerHost` = C; `ss` showed C established connections for every client at C = 64 and 256). wrk is the reference: a C load generator with one thread and "
        "C connections that does not parse more than it must.",
        "- Latency is per request, from before the client's call to after the last body byte, measured by the client "
        "with its monotonic clock (`ContinuousClock`, `time.Now`, `process.hrtime`); p50 and p99 are nearest-rank "
        "percentiles of every request of the timed run. wrk's come from its own histogram (`--latency`). With C "
        "loops a latency includes the time a request waits behind the other C − 1 in the one client thread.",
        "- req/s is the requests of the timed run divided by its length, which ends when the last loop finished its "
        "last request after the deadline. Every cell is bounded in time and in count; every client process also has a "
        "watchdog and an outer `timeout`. A checked first request (status 200, 13-byte body) precedes every run, and "
        "every response's status and body size are checked; failures are counted in *errors*.",
        "- Threads: Go runs with `GOMAXPROCS=1` (it is confined to one CPU, where more Ps would only contend; Go picks "
        "1 there by itself). The Swift clients use one event loop thread each: AsyncHTTPClient a "
        "`MultiThreadedEventLoopGroup(numberOfThreads: 1)` rather than `.singleton` (one loop per core), Fiber "
        "`EventLoopGroup(loopCount: 1)`. Fiber's loops are tasks created with `Task(executorPreference: group.loops[0])`, "
        "so they run on the loop thread and a resumed request does not change thread. AsyncHTTPClient's are plain "
        "tasks on Swift's global pool, as it is normally used (SwiftNIO's event loops are not task executors): each "
        "request goes from a pool thread to the event loop thread and back, both on the same CPU.",
        "- Configuration: each client's defaults but for the pool size, plus a per-request timeout where it is the "
        "usual way to call the client: AsyncHTTPClient `execute(_:timeout: .seconds(30))`, Go `Client.Timeout` of 30 s, "
        "wrk `--timeout 30s`; the Node clients set none, Fiber keeps its default configuration (its read-idle timeout). "
        "Each client sends its default headers; those that ask for gzip (Fiber, fetch) get the body as is, since "
        "nginx's gzip is off.",
        "- Allocations (Swift clients) are counted by the malloc interposer of `Benchmarks/Sources/CBenchSupport`: "
        "calls to `malloc`, `calloc`, `realloc` and the aligned variants in the whole process (the client's event loop "
        "and the request task) over the sequential requests, after 100 uncounted ones, divided by their number. "
        "† Go's figure is `runtime.MemStats.Mallocs` over the same kind of run: objects of Go's own heap, not "
        "malloc calls, so comparable only roughly. Node's are not measured.",
    ]
    if notes:
        lines += [""] + [f"- Note: {n}" for n in notes]
    lines += [
        "",
        "Run it from the repository root (it installs nginx, wrk and golang-go with apt-get when they are missing, "
        "and builds `AHCBench` and `FiberHTTPBench` of `Benchmarks/` with `-c release`):",
        "",
        "```sh",
        "Scripts/bench-http                          # every client at concurrency 1, 16, 64, 256, 5 s a cell; rewrites this section",
        "Scripts/bench-http --quick                  # 1 s a cell; writes nothing here",
        "Scripts/bench-http --duration 10 --clients wrk,fiber",
        "```",
    ]
    return "\n".join(lines) + "\n"


def update_docs(path, text, title=SECTION_TITLE):
    """Replace the section `title` of the Markdown file `path` (up to the next `## `
    heading outside a code fence) with `text`, or append it; nothing else changes."""
    existing = open(path, encoding="utf-8").read() if os.path.exists(path) else "# Performance\n"
    lines = existing.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    new = text.rstrip("\n").split("\n")
    in_fence, start, end = False, None, None
    for i, line in enumerate(lines):
        if line.startswith("```"):
            in_fence = not in_fence
        if in_fence:
            continue
        if start is None and line.strip() == title:
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


def report(results_path, meta_path, docs):
    meta = json.load(open(meta_path, encoding="utf-8"))
    results, failed, skipped = load_results(results_path)
    m = machine()
    versions = package_versions(meta.get("resolved", ""))
    text = section(results, failed, skipped, meta, m, versions)
    print(text)
    if docs:
        update_docs(docs, text)
        print(f'updated the "{SECTION_TITLE}" section of {docs}')


def main(argv):
    if len(argv) >= 1 and argv[0] == "free-port":
        free_port()
    elif len(argv) == 3 and argv[0] == "check":
        check(argv[1], argv[2])
    elif len(argv) == 4 and argv[0] == "wrk":
        parse_wrk(argv[1], argv[2], argv[3])
    elif len(argv) == 2 and argv[0] == "json-body":
        json_body(argv[1])
    elif len(argv) >= 3 and argv[0] == "tag":
        tag(argv[1], argv[2], argv[3:])
    elif len(argv) in (3, 5) and argv[0] == "report":
        docs = argv[4] if len(argv) == 5 and argv[3] == "--docs" else None
        report(argv[1], argv[2], docs)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
