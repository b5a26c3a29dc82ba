"""Splits a `perf` profile of one interleaved PipelineBench run (`--print-phases`) by
the phase each sample fell in, and prints per function the CPU nanoseconds a request
spends there with no interceptor and with the other pipeline, largest difference first.

    python3 Scripts/pipeline_profile.py RUN_OUTPUT PERF_SCRIPT_OUTPUT TOP VERSUS

RUN_OUTPUT holds PipelineBench's PIPELINE_PHASES and PIPELINE_INTERLEAVED lines;
PERF_SCRIPT_OUTPUT is `perf script -F time,ip,sym --ns` of a `perf record -k CLOCK_MONOTONIC`.
(Used by `Scripts/bench-pipeline --profile`.)
"""
import bisect, collections, json, re, sys
run, samples, top, versus = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
text = open(run).read()
bounds = [int(x) for x in text.split("PIPELINE_PHASES ", 1)[1].split("\n", 1)[0].split()]
summary = json.loads(text.split("PIPELINE_INTERLEAVED ", 1)[1].split("\n", 1)[0])
# The middle 80 % of the phases: neither the warm-up nor the drain after the timed run.
low, high = bounds[len(bounds) // 10], bounds[len(bounds) * 9 // 10]
counts, totals = [collections.Counter(), collections.Counter()], [0, 0]
line_pattern = re.compile(r"\s*(\d+)\.(\d+):\s+[0-9a-f]+\s+(.*)")
for line in open(samples):
    match = line_pattern.match(line)
    if not match:
        continue
    time = int(match.group(1)) * 1_000_000_000 + int(match.group(2))
    if not low <= time < high:
        continue
    phase = (bisect.bisect_right(bounds, time) - 1) % 2  # even phases: none; odd: the other
    counts[phase][match.group(3).strip()] += 1
    totals[phase] += 1
if not all(totals):
    sys.exit("profile-pipeline: no samples in one of the pipelines' phases")
# A function's share of a pipeline's samples, times that pipeline's CPU per request.
per_request = [summary["cpu_us_a"] * 1000, summary["cpu_us_b"] * 1000]
rows = []
for name in set(counts[0]) | set(counts[1]):
    a = counts[0][name] / totals[0] * per_request[0]
    b = counts[1][name] / totals[1] * per_request[1]
    rows.append((b - a, a, b, name))
rows.sort(key=lambda row: -abs(row[0]))
print(f"CPU ns per request, none / {versus}: {per_request[0]:.0f} / {per_request[1]:.0f} "
      f"(samples {totals[0]} / {totals[1]}; throughput lost {100 * summary['throughput_lost_median']:.1f} %)")
print(f"{'difference':>10} {'none':>8} {versus:>8}  function")
for difference, a, b, name in rows[:top]:
    print(f"{difference:+10.1f} {a:8.1f} {b:8.1f}  {name[:120]}")
