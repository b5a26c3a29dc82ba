#!/usr/bin/env python3
"""Figures of Scripts/soak and Scripts/check-allocations.

  soak_report.py record FIGURES KEY          result lines on stdin (SOAK_RESULT, "idle ...", ALLOC_RESULT)
                                             stored under KEY of the JSON file FIGURES; prints a summary
  soak_report.py compare BASELINE PERCENT    ALLOC_RESULT lines on stdin against BASELINE; exit 1 when
                                             an operation allocates more than PERCENT % over its baseline
  soak_report.py baseline BASELINE           ALLOC_RESULT lines on stdin become the new BASELINE
  soak_report.py docs FIGURES BASELINE DOC   rewrites DOC between <!-- soak:begin --> and <!-- soak:end -->
"""
import datetime
import json
import os
import re
import sys

BEGIN, END = "<!-- soak:begin -->", "<!-- soak:end -->"


def parse(lines):
    """Result lines as dictionaries: {"soak": ...}, {"idle": ...} or {"alloc": ...}."""
    out = []
    for line in lines:
        line = line.strip()
        if line.startswith("SOAK_RESULT "):
            out.append({"soak": json.loads(line[len("SOAK_RESULT "):])})
        elif line.startswith("ALLOC_RESULT "):
            out.append({"alloc": json.loads(line[len("ALLOC_RESULT "):])})
        elif line.startswith("idle "):
            fields = dict(pair.split("=", 1) for pair in line.split()[1:] if "=" in pair)
            out.append({"idle": {k: float(v) if re.fullmatch(r"-?[0-9.]+", v) else v for k, v in fields.items()}})
    return out


def load(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return {}


def save(path, value):
    with open(path, "w", encoding="utf-8") as f:
        json.dump(value, f, indent=2, sort_keys=True)
        f.write("\n")


def mib(n):
    return f"{n / 1048576:.1f}"


def summary(key, results):
    for r in results:
        if "soak" in r:
            s = r["soak"]
            series = " ".join(f"{p[0] // 1000}k:{mib(p[1])}" for p in s["rss"])
            print(f"{key}: {s['requests']:,} requests, {s['errors']} errors, {s['rps']:,.0f} req/s; "
                  f"RSS MiB {series}; drift {s['drift_percent']} %; pool {s['pool']}; heap {s.get('heap')}")
        elif "idle" in r:
            i = r["idle"]
            print(f"{key}: {int(i['connections'])} idle connections, "
                  f"{int(i['rss_per_connection_bytes'])} B each when opened, "
                  f"{int(i.get('rss_held_per_connection_bytes', 0))} B after {int(i.get('hold_seconds', 0))} s; "
                  f"heap left once closed: {int(i.get('heap_left_after_close_per_connection_bytes', 0))} B each")
        elif "alloc" in r:
            a = r["alloc"]
            print(f"{key}: {a['name']}: {a['allocations']} allocations, {a['bytes']:.0f} bytes, net {a['net']} per operation")


def record(figures_path, key):
    results = parse(sys.stdin)
    if not results:
        sys.exit(f"soak: no result line for {key}")
    figures = load(figures_path)
    figures[key] = results[0] if key != "allocations" else {"alloc": [r["alloc"] for r in results if "alloc" in r]}
    figures[key]["measured"] = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
    save(figures_path, figures)
    summary(key, results)


def compare(baseline_path, percent):
    baseline = load(baseline_path).get("operations", {})
    failed = []
    measured = set()
    print(f"{'operation':<16} {'baseline':>9} {'now':>9} {'change':>8}  bytes/op  net/op")
    for r in parse(sys.stdin):
        if "alloc" not in r:
            continue
        a = r["alloc"]
        measured.add(a["name"])
        base = baseline.get(a["name"])
        if base is None:
            print(f"{a['name']:<16} {'-':>9} {a['allocations']:>9} {'new':>8}  {a['bytes']:>8.0f}  {a['net']:>6}")
            continue
        change = (a["allocations"] - base) / base * 100 if base else 0.0
        print(f"{a['name']:<16} {base:>9} {a['allocations']:>9} {change:>+7.1f}%  {a['bytes']:>8.0f}  {a['net']:>6}")
        if a["allocations"] > base * (1 + percent / 100):
            failed.append(f"{a['name']}: {a['allocations']} allocations per operation, baseline {base} (+{change:.0f} % > +{percent:g} %)")
        elif a["allocations"] < base * (1 - percent / 100):
            print(f"  note: {a['name']} allocates much less than its baseline; update it (Scripts/check-allocations --update-baseline)")
    failed += [f"{name}: in the baseline but not measured" for name in sorted(set(baseline) - measured)]
    if failed:
        print("check-allocations: FAILED\n  " + "\n  ".join(failed))
        sys.exit(1)
    print(f"check-allocations: every operation within +{percent:g} % of its baseline")


def baseline(baseline_path):
    operations = {r["alloc"]["name"]: r["alloc"]["allocations"] for r in parse(sys.stdin) if "alloc" in r}
    if not operations:
        sys.exit("check-allocations: no result to make a baseline of")
    save(baseline_path, {"note": "allocations per operation, release build (Scripts/check-allocations --update-baseline)",
                         "operations": operations})
    print(f"check-allocations: wrote {baseline_path}")


def soak_rows(s):
    settled = next((p for p in s["rss"] if p[0] > 0), None)
    rows = []
    for p in s["rss"]:
        delta = "" if settled is None or p[0] <= settled[0] else f"{(p[1] - settled[1]) / settled[1] * 100:+.1f} %"
        rows.append(f"| {p[0]:,} | {mib(p[1])} | {p[2]:.1f} | {delta} |")
    return rows


def section(figures, baseline_ops):
    lines = [BEGIN, "## Soak and memory", ""]
    dates = sorted({v.get("measured") for v in figures.values() if isinstance(v, dict) and v.get("measured")})
    lines.append(f"Measured{' on ' + ', '.join(dates) if dates else ''} by `Scripts/soak` and "
                 "`Scripts/check-allocations` (release builds, a 2-core machine shared with other work) against "
                 "servers on 127.0.0.1. Resident memory (RSS) is the client process's own, from `/proc/self/statm`; "
                 "request rates are only indicative (the server, nginx with one worker, shares the two cores).")
    lines.append("")
    for key, title in (("http", "HTTP"), ("https", "HTTPS")):
        r = figures.get(key, {}).get("soak")
        if not r:
            continue
        pool = r["pool"]
        lines += [f"### {title} keep-alive soak", "",
                  f"{r['requests']:,} GET requests through `Fiber.get` at concurrency {r['concurrency']} to nginx "
                  f"({r['errors']} errors), {r['rps']:,.0f} requests/s on average. RSS after each 100,000 requests; "
                  "the change is against the first 100,000, which include the warm-up (connections opened, "
                  "buffers and caches grown). Pool at the end: "
                  f"{pool['open']} open, {pool['idle']} idle, {pool['leased']} leased, {pool['waiting']} waiting.", "",
                  "| requests | RSS (MiB) | seconds | change |", "| ---: | ---: | ---: | ---: |"]
        lines += soak_rows(r)
        drift = r.get("drift_percent")
        lines += ["", f"Largest change after the first 100,000 requests: **{drift} %**" +
                  (" (target: within 5 %)." if drift is not None else ".")]
        heap = r.get("heap")
        if heap:
            lines += ["", f"C heap in use (glibc's `mallinfo2`): {mib(heap['start'])} MiB after the first request, "
                      f"{mib(heap['before_shutdown'])} MiB after the last, {mib(heap['after_shutdown'])} MiB once "
                      "`shutdown()` closed the connections. Allocations not freed between the first request and a "
                      f"second after `shutdown()`: {r.get('allocations_left_after_shutdown', '–'):,} in all: the "
                      "client itself and one-time caches and threads of the runtime and OpenSSL, a fixed cost that "
                      "stays in the low thousands however many requests are sent, where a leak would grow with them."]
        lines.append("")
    ws = [(k, t) for k, t in (("websocket", "no compression"), ("websocket-deflate", "permessage-deflate")) if figures.get(k)]
    if ws:
        lines += ["### Idle WebSocket connections", "",
                  "Connections opened by `WebSocketClient.open` to the project's echo server (another process), "
                  "then held open with a ping from every connection every "
                  f"{int(figures[ws[0][0]]['idle'].get('ping_seconds', 0))} s. Memory per connection is the RSS "
                  "growth over the whole process divided by the number of connections; kernel socket buffers are not in it. "
                  "The heap column is the part of it in C heap blocks in use (glibc's `mallinfo2`): the connections' "
                  "objects and buffers; the rest is the allocator's own overhead and free pages. The last column is the "
                  "heap still in use once every connection was closed and its timers had expired, and the allocations "
                  "not freed by then per connection (a leak would leave some; the heap itself may stay a little larger, "
                  "as collections keep their capacity).", "",
                  "| compression | connections | RSS per connection, opened | RSS per connection, held | heap per connection, held | held | heap left per connection once closed | allocations left per connection once closed |",
                  "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
        for key, title in ws:
            i = figures[key]["idle"]
            lines.append(f"| {title} | {int(i['connections']):,} | {int(i['rss_per_connection_bytes']):,} B | "
                         f"{int(i.get('rss_held_per_connection_bytes', 0)):,} B | "
                         f"{int(i.get('heap_held_per_connection_bytes', 0)):,} B | {int(i.get('hold_seconds', 0))} s | "
                         f"{int(i.get('heap_left_after_close_per_connection_bytes', 0)):,} B | "
                         f"{abs(i.get('allocations_left_after_close_per_connection', 0)):.2f} |")
        lines += ["", "The target is at most 8 KiB per idle connection without compression. A connection that "
                  "negotiated permessage-deflate creates its zlib streams (about 256 KiB each) only on its first "
                  "compressed message, so an idle one holds none.", ""]
    allocs = figures.get("allocations", {}).get("alloc", [])
    if allocs:
        lines += ["### Allocations per operation", "",
                  "Counted over the whole process (every thread) by a malloc interposer, one operation after the other "
                  "on one event loop. `Scripts/check-allocations` fails when an operation allocates more than 25 % "
                  "over its baseline (`Benchmarks/allocation-baselines.json`). *Retained* is allocations "
                  "minus frees per operation: memory an operation keeps after it ends.", "",
                  "| operation | baseline | measured | bytes | retained |", "| --- | ---: | ---: | ---: | ---: |"]
        names = {"fiber-get": "`Fiber.get`, body collected", "client-execute": "`HTTPClient.execute`",
                 "client-stream": "`HTTPClient.stream`, body streamed", "websocket-echo": "WebSocket message round trip"}
        for a in allocs:
            base = baseline_ops.get(a["name"], "–")
            lines.append(f"| {names.get(a['name'], a['name'])} | {base} | {a['allocations']} | {a['bytes']:.0f} | {a['net']} |")
        lines.append("")
    lines.append(END)
    return "\n".join(lines)


def docs(figures_path, baseline_path, doc_path):
    text = section(load(figures_path), load(baseline_path).get("operations", {}))
    try:
        with open(doc_path, encoding="utf-8") as f:
            current = f.read()
    except OSError:
        current = "# Reliability\n"
    if BEGIN in current and END in current:
        current = current[:current.index(BEGIN)] + text + current[current.index(END) + len(END):]
    else:
        current = current.rstrip("\n") + "\n\n" + text + "\n"
    with open(doc_path, "w", encoding="utf-8") as f:
        f.write(current)
    print(f"soak: wrote {os.path.relpath(doc_path)}")


def main(argv):
    if len(argv) == 3 and argv[0] == "record":
        record(argv[1], argv[2])
    elif len(argv) == 3 and argv[0] == "compare":
        compare(argv[1], float(argv[2]))
    elif len(argv) == 2 and argv[0] == "baseline":
        baseline(argv[1])
    elif len(argv) == 4 and argv[0] == "docs":
        docs(argv[1], argv[2], argv[3])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
