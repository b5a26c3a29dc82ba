#!/usr/bin/env python3
"""The report of Scripts/bench-all, the whole benchmark matrix.

  report_all.py report RESULTS META [--docs PATH] [--plot PNG] [--plot-link REL] [--no-plot]
      print the tables; with --plot, draw the PNG (needs matplotlib); with --docs,
      rewrite the section "## The whole matrix" of PATH (and no other),
      linking the PNG as REL (relative to PATH's folder)

RESULTS holds the lines that Scripts/bench-http, Scripts/bench-tls and (when it
exists) Scripts/bench-websocket appended with --results: a result of one client in
one cell, {"client", "skipped"} for a client that could not run, {"client",
"concurrency", "failed"} for a cell that failed, {"part", "failed"} for a part that
failed as a whole. Keep-alive lines carry "scheme" (http, https), "workload"
("keepalive") and "path" (/ or /json); bulk lines "workload": "bulk" and
"mb_per_s"; WebSocket lines "workload": "ws-idle" (with "kib_per_connection") or
"ws-echo" (with "rps"). META is the run's settings, written by the script.

Tables need only the standard library; the plot needs matplotlib, which the script
installs when it is missing.
"""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import report as http_report  # noqa: E402  (report.py of Scripts/bench-http, next to this file)

SECTION_TITLE = "## The whole matrix"

# Fiber first: every other client is read against it.
CLIENTS = ["fiber", "fiber-api", "wrk", "go", "ahc", "node-http", "node-fetch"]
NAMES = {
    "fiber": "Fiber",
    "fiber-api": "Fiber.get",
    "wrk": "wrk",
    "go": "Go net/http",
    "ahc": "AsyncHTTPClient",
    "node-http": "Node http/https",
    "node-fetch": "Node fetch",
}
LONG_NAMES = {
    "fiber": "Fiber (the runtime's `HTTPClient`)",
    "fiber-api": "`Fiber.get` (the API users call, no interceptors, over the same client)",
    "wrk": "wrk (C load generator, the reference)",
    "go": "Go net/http",
    "ahc": "AsyncHTTPClient (SwiftNIO)",
    "node-http": "Node `http` (HTTP) / `https` (HTTPS) with a keep-alive Agent",
    "node-fetch": "Node `fetch` (undici)",
}
COLORS = {
    "fiber": "#d62728",
    "fiber-api": "#e377c2",
    "wrk": "#7f7f7f",
    "go": "#1f77b4",
    "ahc": "#ff7f0e",
    "node-http": "#2ca02c",
    "node-fetch": "#9467bd",
}
# The keep-alive variants, in table order: (scheme, path, label).
VARIANTS = [
    ("http", "/", "HTTP, 13 B"),
    ("http", "/json", "HTTP, 914 B JSON"),
    ("https", "/", "HTTPS, 13 B"),
    ("https", "/json", "HTTPS, 914 B JSON"),
]
BULK = [("http", "HTTP, 100 MiB"), ("https", "HTTPS, 100 MiB")]


def client_key(r):
    # bench-tls calls Node's https module "node"; here it is the node-http column.
    c = r.get("client", "")
    return "node-http" if c in ("node", "node-https") else c


def load(path):
    cells, skipped, failed, part_failed, ws = {}, {}, [], [], []
    for line in open(path, encoding="utf-8"):
        line = line.strip()
        if not line:
            continue
        r = json.loads(line)
        if "part" in r:
            part_failed.append(r)
            continue
        client = client_key(r)
        workload = r.get("workload", "keepalive")
        if "skipped" in r:
            skipped.setdefault(client, r["skipped"])
            continue
        if "failed" in r:
            failed.append(r)
            continue
        if workload.startswith("ws"):
            ws.append(r)
        elif workload == "bulk":
            cells[("bulk", r["scheme"], client)] = r
        elif workload == "keepalive":
            cells[("keepalive", r["scheme"], r.get("path", "/"), r["concurrency"], client)] = r
    return cells, skipped, failed, part_failed, ws


def fmt_rate(v):
    if v is None:
        return "–"
    return f"{v:,.0f}" if v >= 100 else f"{v:,.1f}"


def fmt_ratio(v, ref):
    if v is None or not ref:
        return None
    return f"{v / ref:.2f}×"


def cell(v, ref, formatter=fmt_rate):
    if v is None:
        return "–"
    r = fmt_ratio(v, ref)
    return f"{formatter(v)} ({r})" if r else formatter(v)


def present_clients(meta):
    return [c for c in CLIENTS if c in meta["clients"]]


def throughput_table(cells, meta):
    clients = present_clients(meta)
    others = [c for c in clients if c != "fiber"]
    header = ["cell", "C", "unit"] + (["Fiber"] if "fiber" in clients else []) + [NAMES[c] + " (÷ Fiber)" for c in others]
    rows = []
    for scheme, path, label in VARIANTS:
        if ("https" if scheme == "https" else "http") not in meta["parts"]:
            continue
        for c in meta["concurrencies"]:
            fiber = cells.get(("keepalive", scheme, path, c, "fiber"))
            ref = fiber and fiber.get("rps")
            row = [label, str(c), "req/s"]
            if "fiber" in clients:
                row.append(fmt_rate(ref))
            for client in others:
                r = cells.get(("keepalive", scheme, path, c, client))
                row.append(cell(r and r.get("rps"), ref))
            rows.append(row)
    if "bulk" in meta["parts"]:
        for scheme, label in BULK:
            fiber = cells.get(("bulk", scheme, "fiber"))
            ref = fiber and fiber.get("mb_per_s")
            row = [label, "1", "MB/s"]
            if "fiber" in clients:
                row.append(fmt_rate(ref))
            for client in others:
                r = cells.get(("bulk", scheme, client))
                row.append(cell(r and r.get("mb_per_s"), ref))
            rows.append(row)
    if not rows:
        return None
    return http_report.markdown_table(header, rows, right=set(range(1, len(header))) - {2})


def latency_table(cells, meta):
    clients = present_clients(meta)
    others = [c for c in clients if c != "fiber"]
    header = ["cell", "C"] + (["Fiber p99 µs"] if "fiber" in clients else []) + [NAMES[c] + " (÷ Fiber)" for c in others]
    rows = []
    for scheme, path, label in VARIANTS:
        if scheme not in meta["parts"]:
            continue
        for c in meta["concurrencies"]:
            fiber = cells.get(("keepalive", scheme, path, c, "fiber"))
            ref = fiber and fiber.get("p99_us")
            row = [label, str(c)]
            if "fiber" in clients:
                row.append(http_report.micros(ref) if ref is not None else "–")
            for client in others:
                r = cells.get(("keepalive", scheme, path, c, client))
                row.append(cell(r and r.get("p99_us"), ref, http_report.micros))
            rows.append(row)
    if not rows:
        return None
    return http_report.markdown_table(header, rows, right=set(range(1, len(header))))


def alloc_table(cells, meta):
    c = meta["concurrencies"][0] if meta["concurrencies"] else None
    rows = []
    for scheme, path, label in VARIANTS:
        if scheme not in meta["parts"]:
            continue
        row, any_value = [label], False
        for client in ("fiber", "fiber-api", "ahc", "go"):
            r = cells.get(("keepalive", scheme, path, c, client)) or {}
            v = r.get("alloc_per_request")
            if v is None and r.get("go_heap_allocs_per_request") is not None:
                row.append(f"{r['go_heap_allocs_per_request']:,.1f} †")
                any_value = True
            elif v is not None:
                kib = r.get("alloc_bytes_per_request")
                row.append(f"{v:,.1f}" + (f" ({kib / 1024:,.1f} KiB)" if kib is not None else ""))
                any_value = True
            else:
                row.append("–")
        if any_value:
            rows.append(row)
    if not rows:
        return None
    return c, http_report.markdown_table(["cell", "Fiber", "Fiber.get", "AsyncHTTPClient", "Go net/http †"], rows, right={1, 2, 3, 4})


WS_METRICS = {
    "ws-idle": ("kib_per_connection", "KiB per idle connection", "lower is better"),
    "ws-echo": ("rps", "echoed messages/s", "higher is better"),
}


def ws_table(ws):
    if not ws:
        return None
    by = {}
    for r in ws:
        by[(r["workload"], r.get("concurrency", 1), client_key(r))] = r
    clients = [c for c in CLIENTS if any(k[2] == c for k in by)] + sorted({k[2] for k in by} - set(CLIENTS))
    others = [c for c in clients if c != "fiber"]
    header = ["workload", "connections", "unit", "Fiber"] + [NAMES.get(c, c) + " (÷ Fiber)" for c in others]
    rows = []
    for workload in sorted({k[0] for k in by}):
        key, unit, _ = WS_METRICS.get(workload, ("rps", "per second", ""))
        for conns in sorted({k[1] for k in by if k[0] == workload}):
            fiber = by.get((workload, conns, "fiber"), {}).get(key)
            row = [workload, str(conns), unit, fmt_rate(fiber)]
            for client in others:
                row.append(cell(by.get((workload, conns, client), {}).get(key), fiber))
            rows.append(row)
    return http_report.markdown_table(header, rows, right=set(range(1, len(header))) - {2})


def ratio_summary(cells, meta):
    """The geometric mean of each client's req/s ÷ Fiber's over the keep-alive cells both have."""
    import math
    out = {}
    for client in present_clients(meta):
        if client == "fiber":
            continue
        logs = []
        for scheme, path, _ in VARIANTS:
            for c in meta["concurrencies"]:
                f = cells.get(("keepalive", scheme, path, c, "fiber"))
                r = cells.get(("keepalive", scheme, path, c, client))
                if f and r and f.get("rps") and r.get("rps"):
                    logs.append(math.log(r["rps"] / f["rps"]))
        if logs:
            out[client] = (math.exp(sum(logs) / len(logs)), len(logs))
    return out


def overloaded(meta):
    """A sentence when other work kept the machine busier than its CPUs before the run."""
    try:
        load = float(str(meta.get("loadavg_before", "")).split()[0])
    except (IndexError, ValueError):
        return None
    cpus = os.cpu_count() or 1
    if load <= cpus:
        return None
    return (f"the 1-minute load average was {load:.1f} on {cpus} CPUs before the run: other work competed with "
            "nginx and the clients throughout, so a cell can be off by a factor of 2 or more and single ratios "
            "mean little; the geometric means and the allocation counts are the steadier figures.")


# MARK: the plot

def plot(cells, ws, meta, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter

    clients = present_clients(meta)
    concurrencies = meta["concurrencies"]
    fig, axes = plt.subplots(3, 2, figsize=(13, 13.5))
    width = 0.8 / max(len(clients), 1)
    thousands = FuncFormatter(lambda v, _: (f"{v / 1000:,.0f}k" if v >= 10000 or v % 1000 == 0 else f"{v / 1000:,.1f}k")
                              if v >= 1000 else f"{v:,.0f}")

    def bars(ax, groups, values, ratios_of):
        for i, client in enumerate(clients):
            xs = [g + (i - (len(clients) - 1) / 2) * width for g in range(len(groups))]
            ys = [values(client, g) or 0 for g in range(len(groups))]
            ax.bar(xs, ys, width, color=COLORS[client], label=LONG_NAMES[client].replace("`", ""),
                   edgecolor="black" if client == "fiber" else "none", linewidth=0.8)
        # Above each group: the best other client's ratio to Fiber is easy to misread, so
        # print Fiber's rank instead: how many clients beat it (wrk excluded).
        for g in range(len(groups)):
            f = values("fiber", g)
            if not f:
                continue
            peers = [values(c, g) for c in clients if c not in ("fiber", "wrk")]
            beaten_by = sum(1 for v in peers if v and v > f)
            top = max([values(c, g) or 0 for c in clients])
            ax.text(g, top * 1.02, f"Fiber #{beaten_by + 1} of {1 + len([v for v in peers if v])}*",
                    ha="center", va="bottom", fontsize=8, color=COLORS["fiber"])
        ax.set_xticks(range(len(groups)))
        ax.set_xticklabels(groups)
        ax.yaxis.set_major_formatter(thousands)
        ax.grid(axis="y", alpha=0.3)
        ax.set_axisbelow(True)
        ymax = ax.get_ylim()[1]
        ax.set_ylim(0, ymax * 1.08)

    panels = [(s, p, l) for s, p, l in VARIANTS if s in meta["parts"]]
    slots = list(axes.flat)
    for ax, (scheme, path_, label) in zip(slots, panels):
        bars(ax, [f"C = {c}" for c in concurrencies],
             lambda client, g, s=scheme, p=path_: (cells.get(("keepalive", s, p, concurrencies[g], client)) or {}).get("rps"),
             None)
        ax.set_title(f"Keep-alive GET, {label}", fontsize=11, fontweight="bold")
        ax.set_ylabel("requests / s (higher is better)")
    used = len(panels)
    if "bulk" in meta["parts"] and used < len(slots):
        ax = slots[used]
        used += 1
        bars(ax, [label for _, label in BULK],
             lambda client, g: (cells.get(("bulk", BULK[g][0], client)) or {}).get("mb_per_s"), None)
        ax.set_title("One 100 MiB download, one connection", fontsize=11, fontweight="bold")
        ax.set_ylabel("MB/s (higher is better)")
        ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.0f}"))
    if used < len(slots):
        ax = slots[used]
        used += 1
        echo = [r for r in ws if r.get("workload") == "ws-echo"]
        if echo:
            conns = sorted({r.get("concurrency", 1) for r in echo})
            by = {(r.get("concurrency", 1), client_key(r)): r.get("rps") for r in echo}
            ws_clients = [c for c in clients if any(k[1] == c for k in by)]
            w = 0.8 / max(len(ws_clients), 1)
            for i, client in enumerate(ws_clients):
                xs = [g + (i - (len(ws_clients) - 1) / 2) * w for g in range(len(conns))]
                ax.bar(xs, [by.get((c, client)) or 0 for c in conns], w, color=COLORS.get(client, "#444"),
                       edgecolor="black" if client == "fiber" else "none")
            ax.set_xticks(range(len(conns)))
            ax.set_xticklabels([f"{c} connections" for c in conns])
            ax.yaxis.set_major_formatter(thousands)
            ax.set_ylabel("echoed messages / s (higher is better)")
            ax.grid(axis="y", alpha=0.3)
            ax.set_title("WebSocket echo", fontsize=11, fontweight="bold")
        else:
            ax.axis("off")
            ax.set_title("WebSocket", fontsize=11, fontweight="bold")
            ax.text(0.5, 0.5, "WebSocket: " + meta.get("websocket", "not available"), ha="center", va="center",
                    wrap=True, fontsize=10, transform=ax.transAxes)
    for ax in slots[used:]:
        ax.axis("off")
    handles, labels = slots[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="upper center", ncol=3, fontsize=10, frameon=False, bbox_to_anchor=(0.5, 0.955))
    quick = " (--quick: 1 s cells, a smoke run)" if meta.get("quick") else ""
    load = f"; load average {str(meta.get('loadavg_before', '?')).split()[0]} before the run" if overloaded(meta) else ""
    fig.suptitle(f"Fiber and its peers against nginx on 127.0.0.1 — {meta['date']}{quick}\n"
                 f"nginx on CPU 0, each client alone on CPU 1; one run per cell on a noisy, shared 2-core machine{load}\n"
                 "* Fiber's rank among the clients of the cell, wrk (a load generator, not a client library) aside",
                 fontsize=11.5, y=0.998)
    fig.tight_layout(rect=(0, 0, 1, 0.935))
    fig.savefig(path, dpi=90)
    plt.close(fig)


# MARK: the section

def section(cells, skipped, failed, part_failed, ws, meta, m, versions, plot_link):
    options = meta.get("options_note", "")
    ahc = versions.get("async-http-client", "?")
    nio = versions.get("swift-nio", "?")
    lines = [
        SECTION_TITLE,
        "",
        f"Measured on {meta['date']} with `Scripts/bench-all`{(' (`' + options + '`)') if options else ''}, "
        f"which runs `Scripts/bench-http` and `Scripts/bench-tls` (the sections above describe their drivers) for "
        f"every cell of the matrix and collects the results of one run; the runs took {meta.get('seconds_taken', '?')} s.",
        "",
        f"- Code: commit `{meta.get('commit', '?')}`"
        + (f" with uncommitted changes in {meta['sources_dirty']} file(s) of `Sources/`" if meta.get("sources_dirty") else "")
        + (f"; `FiberHTTPBench` built {meta['fiber_built']}" if meta.get("fiber_built") else "")
        + "; every part ran a copy of the client binaries taken before the first",
        f"- Machine: {m['online']} CPUs online (`nproc`: {m['nproc']}), {m['model']}, {m['kernel']}; "
        f"load average before the runs {meta.get('loadavg_before', '?')}, after them {meta.get('loadavg_after', '?')}",
        f"- Toolchains: {m['swift']} (`-c release`); Go {m['go']}; {m['node']} (undici {m['undici']}); "
        f"AsyncHTTPClient {ahc} (SwiftNIO {nio}); {m['wrk']}; nginx {m['nginx'].replace('nginx/', '')}",
        "- Server: nginx, one worker " + ("pinned to CPU 0" if meta.get("pinned") else "(not pinned)") +
        "; `GET /` returns the 13-byte `Hello, world!`, `GET /json` a 914-byte JSON file "
        "(`application/json`), `GET /big` 100 MiB of random bytes (plain TCP with `sendfile`); TLS 1.2/1.3 with "
        "a P-256 certificate chain from `fiber-test-pki` that every client but wrk verifies",
        "- Clients: one at a time, " + ("each pinned to CPU 1" if meta.get("pinned") else "not pinned") +
        ", one thread or event loop each (Go `GOMAXPROCS=1`); C concurrent request loops over up to C "
        "keep-alive connections; for each cell the clients run one after the other, so they share the noise of "
        "that moment",
        f"- A keep-alive cell: {meta['warmup']} s of warm-up (not timed; wrk has none), then {meta['duration']} s "
        f"or {http_report.grouped(meta['max_requests'])} requests; a bulk cell: one checked download, then at most "
        f"{meta['bulk_downloads']} timed downloads or {meta['duration']} s; one run per cell",
        "",
        f"> A shared, noisy {m['online']}-core machine: read the ratios within this run, not the absolute numbers; "
        "differences under about 20 % are noise, and a single cell can be off by more.",
        "",
    ]
    overload = overloaded(meta)
    if overload:
        lines += [f"> **Warning:** {overload}", ""]
    if plot_link:
        lines += [f"![Requests per second of every client in every cell, and the download rates]({plot_link})", ""]
    main = throughput_table(cells, meta)
    if main:
        lines += [
            "**Throughput of every cell** — Fiber's req/s (MB/s for the downloads), and each other client's with "
            "its ratio to Fiber's in parentheses: above 1× the client did better than Fiber.",
            "",
            main,
            "",
        ]
    summary = ratio_summary(cells, meta)
    if summary:
        parts = [f"{NAMES[c]} {v:.2f}× (over {n} cells)" for c, (v, n) in summary.items()]
        lines += ["Geometric mean of req/s ÷ Fiber's over the keep-alive cells: " + "; ".join(parts) + ".", ""]
    lat = latency_table(cells, meta)
    if lat:
        lines += [
            "**p99 latency of every keep-alive cell** — Fiber's, and each other client's with its ratio to Fiber's: "
            "below 1× the client did better. Latencies are measured by each client around its own call "
            "(wrk's by its histogram, which leaves out its own scheduling).",
            "",
            lat,
            "",
        ]
    alloc = alloc_table(cells, meta)
    if alloc:
        c, table = alloc
        lines += [
            f"**Allocations per request** at concurrency {c}, over {http_report.grouped(meta['alloc_requests'])} "
            "sequential requests after the timed run: calls to `malloc` & co. in the whole process (the Swift "
            "clients, counted by `CBenchSupport`); † Go's `runtime.MemStats.Mallocs`, objects of Go's heap, "
            "comparable only roughly.",
            "",
            table,
            "",
        ]
    wst = ws_table(ws)
    if wst:
        lines += ["**WebSocket** (`Scripts/bench-websocket`) — idle memory per connection (lower is better) and "
                  "echo rate (higher is better), with each client's ratio to Fiber.", "", wst, ""]
    else:
        lines += [f"**WebSocket**: {meta.get('websocket', 'not available')}.", ""]
    notes = []
    for client, why in skipped.items():
        notes.append(f"{NAMES.get(client, client)} skipped: {why}")
    for f in failed:
        where = f"{f.get('workload', 'keepalive')} {f.get('scheme', '')} {f.get('path', '')}".strip()
        notes.append(f"{NAMES.get(client_key(f), f.get('client'))}, {where}, concurrency {f.get('concurrency', '?')}: "
                     f"failed ({f['failed']})")
    for p in part_failed:
        notes.append(f"part {p['part']} failed: {p['failed']}")
    errors = [(k, r) for k, r in cells.items() if r.get("errors")]
    for k, r in errors:
        notes.append(f"{NAMES.get(k[-1], k[-1])} in {' '.join(str(x) for x in k[:-1])}: {r['errors']} errors")
    if notes:
        lines += ["Notes:", ""] + [f"- {n}" for n in notes] + [""]
    lines += [
        "Columns: " + "; ".join(f"{NAMES[c]} is {LONG_NAMES[c]}" for c in present_clients(meta) if NAMES[c] != LONG_NAMES[c]) + ".",
        "",
        "Run it from the repository root (it installs nginx, wrk, golang-go and nodejs with apt-get when they are "
        "missing, builds the Go peer and the Swift drivers once, and matplotlib with pip for the plot):",
        "",
        "```sh",
        "Scripts/bench-all            # the whole matrix, 5 s a cell (about 15 minutes); rewrites this section and the plot",
        "Scripts/bench-all --quick    # 1 s a cell; writes nothing here (the plot goes to Benchmarks/results/raw/all/)",
        "Scripts/bench-all --help     # every option: --clients, --parts, --concurrency, --no-build, ...",
        "```",
    ]
    return "\n".join(lines) + "\n"


def report(argv):
    results_path, meta_path = argv[0], argv[1]
    docs = plot_path = plot_link = None
    no_plot = False
    rest = argv[2:]
    while rest:
        flag = rest.pop(0)
        if flag == "--docs":
            docs = rest.pop(0)
        elif flag == "--plot":
            plot_path = rest.pop(0)
        elif flag == "--plot-link":
            plot_link = rest.pop(0)
        elif flag == "--no-plot":
            no_plot = True
        else:
            sys.exit(__doc__)
    meta = json.load(open(meta_path, encoding="utf-8"))
    cells, skipped, failed, part_failed, ws = load(results_path)
    drew = False
    if plot_path and not no_plot:
        try:
            plot(cells, ws, meta, plot_path)
            drew = True
            print(f"bench-all: drew {plot_path}", file=sys.stderr)
        except ImportError as error:
            print(f"bench-all: no plot ({error})", file=sys.stderr)
    m = http_report.machine()
    versions = http_report.package_versions(meta.get("resolved", ""))
    text = section(cells, skipped, failed, part_failed, ws, meta, m, versions,
                   (plot_link or (os.path.basename(plot_path) if plot_path else None)) if drew and docs else None)
    print(text)
    if docs:
        http_report.update_docs(docs, text, SECTION_TITLE)
        print(f'updated the "{SECTION_TITLE}" section of {docs}')


def main(argv):
    if len(argv) >= 3 and argv[0] == "report":
        report(argv[1:])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
