#!/usr/bin/env python3
"""Helpers of Scripts/bench-h2, the HTTP/2 client benchmark.

  report_h2.py free-port                    print a free TCP port on 127.0.0.1
  report_h2.py h2load CONNS STREAMS LOG TSV turn h2load's output (LOG) and per-request log (TSV,
                                            --log-file) into a BENCH_RESULT line
  report_h2.py record RESULTS LINE CONNS STREAMS PATH
                                            append LINE (a BENCH_RESULT) to RESULTS with the cell
  report_h2.py report RESULTS META [--docs PATH]
                                            print the table; with --docs, rewrite the section
                                            "## HTTP/2 GET" of PATH

Standard library only; shares the machine description and the table layout with
report.py (Scripts/bench-http).
"""

import json
import re
import sys

from report import alloc_cell, free_port, grouped, machine, markdown_table, micros, package_versions, update_docs

SECTION_TITLE = "## HTTP/2 GET"

CLIENTS = ["h2load", "go", "node-http2", "ahc-h2", "fiber-h2", "fiber-h2-api"]
CLIENT_NAMES = {
    "h2load": "h2load (C, nghttp2)",
    "go": "Go net/http (HTTP/2)",
    "node-http2": "Node http2",
    "ahc-h2": "AsyncHTTPClient (HTTP/2)",
    "fiber-h2": "Fiber runtime (HTTP/2)",
    "fiber-h2-api": "Fiber API (HTTP/2)",
}


METHOD = """`Scripts/bench-h2` measures HTTP/2 clients against a local nginx over TLS 1.3 with \
`listen … ssl http2` (ALPN h2): `GET /hello` (13 bytes) and `GET /1k` (1 KiB). A cell is N connections \
with M streams in flight on each, N × M request loops in all: 1 × 1, 1 × 16, 1 × 100 and 8 × 64 (nginx \
allows 128 streams a connection). h2load is nghttp2's load generator, the C reference; every other client \
sends request i on connection i mod N (Go: N transports of one connection; Node: N sessions; \
AsyncHTTPClient and Fiber: N clients on one event loop, `httpVersion = .automatic`), checks the status \
and the body's size, and fails the run if a response came over anything but HTTP/2. Fiber is measured \
twice: its runtime client (`HTTPClient.execute`) and the `Fiber` API users call (`Fiber.get`, no \
interceptors, over the same client). Placement, warm-up, bounds and allocation counting (first cell \
only) are those of the HTTP/1.1 benchmark.

```sh
Scripts/bench-h2 --quick          # 1 s a cell; prints the table
Scripts/bench-h2 --docs           # 5 s a cell; rewrites this section
```"""


def percentile(sorted_values, p):
    if not sorted_values:
        return None
    rank = min(max(int(-(-p / 100 * len(sorted_values) // 1)), 1), len(sorted_values))
    return sorted_values[rank - 1]


def parse_h2load(conns, streams, log_path, tsv_path):
    """h2load prints `finished in 1.00s, 12345.67 req/s, …` and `requests: N total, N started,
    N done, N succeeded, N failed, N errored, N timeout`; its --log-file has one line a request:
    start (µs since the epoch), status, duration (µs)."""
    text = open(log_path, encoding="utf-8", errors="replace").read()
    finished = re.search(r"finished in ([0-9.]+)(ms|s), ([0-9.]+) req/s", text)
    counts = re.search(r"requests: (\d+) total, (\d+) started, (\d+) done, (\d+) succeeded, (\d+) failed, (\d+) errored", text)
    if not finished or not counts:
        sys.exit(f"bench-h2: no h2load summary in {log_path}")
    # "finished in" counts the warm-up too: the timed period is requests / (req/s).
    seconds = int(counts.group(4)) / float(finished.group(3)) if float(finished.group(3)) > 0 else 0.0
    durations = []
    for line in open(tsv_path, encoding="utf-8", errors="replace"):
        fields = line.split()
        if len(fields) >= 3 and fields[1] == "200":
            durations.append(float(fields[2]))
    durations.sort()
    succeeded = int(counts.group(4))
    print("BENCH_RESULT " + json.dumps({
        "client": "h2load", "concurrency": int(conns) * int(streams), "requests": succeeded,
        "errors": int(counts.group(5)) + int(counts.group(6)), "seconds": seconds,
        "rps": float(finished.group(3)), "p50_us": percentile(durations, 50), "p99_us": percentile(durations, 99),
    }))


def record(results_path, line, conns, streams, path):
    r = json.loads(line)
    r.update({"connections": int(conns), "streams": int(streams), "path": path})
    with open(results_path, "a", encoding="utf-8") as f:
        f.write(json.dumps(r) + "\n")


def load(results_path):
    results, notes = [], []
    for line in open(results_path, encoding="utf-8"):
        if line.strip():
            r = json.loads(line)
            (notes if "skipped" in r or "failed" in r else results).append(r)
    return results, notes


def table(results, meta):
    rows = []
    for path in meta["paths"]:
        for cell in meta["cells"]:
            conns, streams = cell
            for client in CLIENTS:
                for r in results:
                    if (r["client"], r["connections"], r["streams"], r["path"]) != (client, conns, streams, path):
                        continue
                    rows.append([
                        f"{conns} × {streams}", meta["body_bytes"][path], CLIENT_NAMES[client], grouped(r["requests"]),
                        grouped(r["rps"] or 0), micros(r["p50_us"]), micros(r["p99_us"]), alloc_cell(r), r.get("errors", 0),
                    ])
    header = ["connections × streams", "body bytes", "client", "requests", "req/s", "p50 µs", "p99 µs",
              "allocations/request", "errors"]
    return markdown_table(header, rows, right={0, 1, 3, 4, 5, 6, 7, 8})


def section(results, notes, meta):
    m = machine()
    versions = package_versions(meta["resolved"])
    described = {
        "h2load": f"h2load ({meta['h2load']}, `-t 1 -c N -m M`)",
        "go": "Go net/http with `ForceAttemptHTTP2` (`GOMAXPROCS=1`)",
        "node-http2": "Node `http2` sessions",
        "ahc-h2": f"AsyncHTTPClient {versions.get('async-http-client', '?')} with `httpVersion = .automatic`",
        "fiber-h2": "Fiber's `HTTPClient.execute` with `httpVersion = .automatic`",
        "fiber-h2-api": "`Fiber.get` over the same client",
    }
    lines = [
        SECTION_TITLE, "",
        METHOD, "",
        f"Measured on {meta['date']} with `Scripts/bench-h2`{(' ' + meta['options_note']) if meta['options_note'] else ''}.", "",
        f"- Machine: {m['online']} CPUs online (`nproc`: {m['nproc']}), {m['model']}, {m['kernel']}",
        f"- Toolchains: {m['swift']} (`-c release`); Go {m['go']}; {m['node']}",
        f"- Server: {m['nginx']} over TLS 1.3 with `listen … ssl http2` (ALPN h2), one worker pinned to CPU 0;"
        " `/hello` answers 13 bytes (`return 200`), `/1k` a 1 KiB file",
        "- Clients, one at a time, pinned to CPU 1: " + "; ".join(
            described[c] for c in CLIENTS if c in meta["clients"]),
        f"- Each cell: {meta['warmup']} s of warm-up, then {meta['duration']} s or {meta['max_requests']:,} requests;"
        " N connections, each with M streams in flight (N × M request loops)",
        f"- Load average before the runs: {meta['loadavg_before']}; after them: {meta['loadavg_after']};"
        f" the runs took {meta['seconds_taken']} s",
        "",
        "> A shared, noisy 2-core machine: read orders of magnitude, and compare runs made on the same machine.",
        "",
        table(results, meta),
        "",
        "† Go heap objects per request (`runtime.MemStats.Mallocs`), not malloc calls.",
    ]
    for n in notes:
        lines.append(f"\n- {CLIENT_NAMES.get(n['client'], n['client'])}: {n.get('skipped') or n.get('failed')}")
    return "\n".join(lines) + "\n"


def report(results_path, meta_path, docs):
    meta = json.load(open(meta_path, encoding="utf-8"))
    results, notes = load(results_path)
    text = section(results, notes, meta)
    print(text)
    if docs:
        update_docs(docs, text, title=SECTION_TITLE)


def main(argv):
    command = argv[0] if argv else ""
    if command == "free-port":
        free_port()
    elif command == "h2load" and len(argv) == 5:
        parse_h2load(*argv[1:])
    elif command == "record" and len(argv) == 6:
        record(*argv[1:])
    elif command == "report" and len(argv) in (3, 5):
        report(argv[1], argv[2], argv[4] if len(argv) == 5 and argv[3] == "--docs" else None)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
