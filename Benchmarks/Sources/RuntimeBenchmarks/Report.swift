import FiberRuntime
import Foundation

// MARK: The machine

struct Machine: Sendable {
    let onlineCPUs: Int
    let allowedCPUs: Int
    let cpuModel: String
    let kernel: String
    let swiftVersion: String
    let date: String

    static func current() -> Machine {
        let online = Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))
        let cpuinfo = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        let model = cpuinfo.split(separator: "\n")
            .first { $0.hasPrefix("model name") }
            .flatMap { $0.split(separator: ":", maxSplits: 1).last }
            .map { $0.trimmingCharacters(in: .whitespaces) } ?? "unknown"
        var name = utsname()
        uname(&name)
        let release = withUnsafeBytes(of: &name.release) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        let swift = ProcessInfo.processInfo.environment["FIBER_SWIFT_VERSION"].flatMap { $0.isEmpty ? nil : $0 }
            ?? compilerVersion
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm 'UTC'"
        return Machine(onlineCPUs: online, allowedCPUs: EventLoopGroup.systemCoreCount, cpuModel: model,
                       kernel: "Linux \(release)", swiftVersion: swift, date: formatter.string(from: Date()))
    }

    /// Known only roughly at compile time; `Scripts/bench-runtime` passes the exact `swift --version`.
    private static var compilerVersion: String {
        #if compiler(>=6.4)
        return "Swift 6.4 or newer (exact version unknown)"
        #elseif compiler(>=6.3)
        return "Swift 6.3.x (exact version unknown)"
        #else
        return "Swift 6.2.x (exact version unknown)"
        #endif
    }

    var summary: String {
        "machine: \(onlineCPUs) CPU(s) online (\(allowedCPUs) usable), \(cpuModel), \(kernel); \(swiftVersion); \(date)"
    }
}

// MARK: Formatting

func fixed(_ value: Double, _ digits: Int) -> String {
    guard value.isFinite else { return "-" }
    return String(format: "%.\(digits)f", value)
}

/// An integer with thousands separators: 1234567 → "1,234,567".
func grouped(_ value: Double) -> String {
    guard value.isFinite else { return "-" }
    let digits = String(Int(value.rounded()))
    var out = ""
    for (i, ch) in digits.reversed().enumerated() {
        if i > 0, i % 3 == 0, ch != "-" { out.append(",") }
        out.append(ch)
    }
    return String(out.reversed())
}

/// Nanoseconds: one decimal below a microsecond, whole and grouped above ("52,835").
func nanos(_ value: Double) -> String { value < 1000 ? fixed(value, 1) : grouped(value) }

func format(_ d: Duration) -> String { "\(fixed(d.seconds, 3)) s" }

/// A Markdown table with its columns padded, readable as plain text too.
func markdownTable(_ header: [String], _ rows: [[String]], rightAligned: Set<Int> = []) -> String {
    let widths = header.indices.map { i in ([header[i]] + rows.map { $0[i] }).map(\.count).max() ?? 0 }
    func line(_ cells: [String]) -> String {
        "| " + cells.enumerated().map { i, cell in
            let pad = String(repeating: " ", count: widths[i] - cell.count)
            return rightAligned.contains(i) ? pad + cell : cell + pad
        }.joined(separator: " | ") + " |"
    }
    let rule = "|" + widths.indices.map { i in
        let dashes = String(repeating: "-", count: max(widths[i], 3))
        return rightAligned.contains(i) ? "-" + dashes + ":" : "-" + dashes + "-"
    }.joined(separator: "|") + "|"
    return ([line(header), rule] + rows.map(line)).joined(separator: "\n")
}

// MARK: The report

struct EchoKey: Hashable {
    let mode: EchoBenchmark.TaskMode
    let connections: Int
}

struct Report {
    static let sectionTitle = "## Runtime"

    let machine: Machine
    let placement: Placement
    let options: Options
    var baseline: [[BaselineBenchmark.Sample]] = []
    var crossThread: [[CrossThreadBenchmark.Sample]] = []
    var actorCalls: [[ActorCallBenchmark.Sample]] = []
    var echo: [[EchoBenchmark.Sample]] = []
    var crossThreadAllocations: [Int: CrossThreadBenchmark.Sample] = [:]
    var actorCallAllocations: [ActorCallBenchmark.Caller: ActorCallBenchmark.Sample] = [:]
    var echoAllocations: [EchoKey: EchoBenchmark.Sample] = [:]
    var notes: [String] = []

    init(machine: Machine, placement: Placement, options: Options) {
        self.machine = machine
        self.placement = placement
        self.options = options
    }

    private func allocationsPer(_ counts: AllocationCounts?, _ units: Int) -> String {
        guard let counts else { return "-" }
        return fixed(Double(counts.allocations) / Double(max(units, 1)), 2)
    }

    /// "12.3 (11.9–13.0)": the median and, with several runs, the range.
    private func medianWithRange(_ values: [Double], grouping: Bool = false) -> String {
        let show: (Double) -> String = { grouping ? grouped($0) : nanos($0) }
        let m = show(median(values))
        guard values.count > 1 else { return m }
        return "\(m) (\(show(values.min()!))–\(show(values.max()!)))"
    }

    /// The run whose `key` is the median (the lower middle one for an even count).
    private func medianRun<S>(_ samples: [S], by key: (S) -> Double) -> S {
        samples.sorted { key($0) < key($1) }[(samples.count - 1) / 2]
    }

    func markdownTables() -> String {
        var parts: [String] = []
        let runsNote = options.runs > 1 ? "median of \(options.runs) runs (min–max)" : "one run"
        if !baseline.isEmpty {
            let rows: [[String]] = baseline.map { samples in
                let s = medianRun(samples, by: \.roundsPerSecond)
                return [s.name, grouped(Double(s.rounds)), medianWithRange(samples.map(\.roundsPerSecond), grouping: true),
                        fixed(s.latencyMicroseconds(50), 1), fixed(s.latencyMicroseconds(99), 1)]
            }
            parts.append("""
            **0. The machine without the runtime** — for scale: what two plain threads and blocking sockets do here; \
            \(runsNote), latencies of the median run.

            \(markdownTable(["baseline", "round trips", "round trips/s", "p50 µs", "p99 µs"], rows, rightAligned: [1, 2, 3, 4]))
            """)
        }
        if !crossThread.isEmpty || !crossThreadAllocations.isEmpty {
            let threadCounts = crossThread.isEmpty ? crossThreadAllocations.keys.sorted() : crossThread.map { $0[0].threads }
            let rows: [[String]] = threadCounts.map { threads in
                let samples = crossThread.first { $0.first?.threads == threads } ?? []
                let alloc = crossThreadAllocations[threads]
                guard !samples.isEmpty else {
                    return ["\(threads)", "-", "-", "-", "-", allocationsPer(alloc?.allocations, alloc?.jobs ?? 1)]
                }
                return [
                    "\(threads)",
                    grouped(Double(samples.map(\.jobs).max()!)),
                    medianWithRange(samples.map(\.nanosecondsPerJob)),
                    medianWithRange(samples.map(\.jobsPerSecond), grouping: true),
                    medianWithRange(samples.map(\.submitNanosecondsPerJob)),
                    allocationsPer(alloc?.allocations, alloc?.jobs ?? 1),
                ]
            }
            parts.append("""
            **1. Cross-thread job submission** — `loop.execute { }` from plain threads, \(runsNote); \
            the job bumps an atomic counter; timed until every job ran on the loop.

            \(markdownTable(["submitting threads", "jobs/run (max)", "ns/job end-to-end", "jobs/s", "submit-side ns/job", "allocations/job"],
                            rows, rightAligned: [1, 2, 3, 4, 5]))
            """)
        }
        if !actorCalls.isEmpty || !actorCallAllocations.isEmpty {
            let rows: [[String]] = ActorCallBenchmark.Caller.allCases.compactMap { caller in
                let samples = actorCalls.first { $0.first?.caller == caller } ?? []
                let alloc = actorCallAllocations[caller]
                if samples.isEmpty && alloc == nil { return nil }
                let hop = caller == .globalPool ? "loop ↔ global pool" : "none"
                guard !samples.isEmpty else {
                    return [caller.rawValue, hop, "-", "-", allocationsPer(alloc?.allocations, alloc?.calls ?? 1)]
                }
                return [
                    caller.rawValue, hop,
                    grouped(Double(samples.map(\.calls).max()!)),
                    medianWithRange(samples.map(\.nanosecondsPerCall)),
                    allocationsPer(alloc?.allocations, alloc?.calls ?? 1),
                ]
            }
            parts.append("""
            **2. Calls to an actor pinned to a loop** — `await target.bump()` in a loop, \(runsNote).

            \(markdownTable(["caller", "thread switch", "calls/run (max)", "ns/call", "allocations/call"], rows, rightAligned: [2, 3, 4]))
            """)
        }
        if !echo.isEmpty || !echoAllocations.isEmpty {
            var keys = echo.compactMap { $0.first.map { EchoKey(mode: $0.mode, connections: $0.connections) } }
            for key in echoAllocations.keys.sorted(by: { ($0.mode.rawValue, $0.connections) < ($1.mode.rawValue, $1.connections) })
            where !keys.contains(key) { keys.append(key) }
            let rows: [[String]] = keys.map { key in
                let alloc = echoAllocations[key]
                let allocs = allocationsPer(alloc?.allocations, alloc?.roundTrips ?? 1)
                guard let samples = echo.first(where: { $0.first?.mode == key.mode && $0.first?.connections == key.connections }),
                      !samples.isEmpty else {
                    return [key.mode.rawValue, "\(key.connections)", "-", "-", "-", "-", allocs]
                }
                let s = medianRun(samples, by: \.roundTripsPerSecond)
                return [
                    key.mode.rawValue, "\(key.connections)", grouped(Double(s.roundTrips)),
                    medianWithRange(samples.map(\.roundTripsPerSecond), grouping: true),
                    fixed(s.latencyMicroseconds(50), 1), fixed(s.latencyMicroseconds(99), 1), allocs,
                ]
            }
            parts.append("""
            **3–4. Loopback echo** — \(EchoBenchmark.messageSize)-byte messages over TCP on 127.0.0.1, server and \
            clients on two one-loop groups; each connection writes 64 bytes and reads until 64 bytes came back; \
            \(fixed(options.echoSeconds, 1)) s per run, \(runsNote), round trips and latencies of the median run. \
            *Plain tasks* drive the loop-pinned actors from ordinary tasks; *tasks preferring their loop* are the \
            same tasks created with `executorPreference:` set to their loop (see the notes below).

            \(markdownTable(["tasks", "connections", "round trips", "round trips/s", "p50 µs", "p99 µs", "allocations/round trip"],
                            rows, rightAligned: [1, 2, 3, 4, 5, 6]))
            """)
        }
        return parts.joined(separator: "\n\n")
    }

    func markdownSection() -> String {
        let cores = "\(machine.onlineCPUs)-core"
        var lines = [
            Self.sectionTitle,
            "",
            "Measured on \(machine.date) with `Scripts/bench-runtime`"
                + (options.runs != 3 || options.echoSeconds != 2 ? " (`--runs \(options.runs) --echo-seconds \(fixed(options.echoSeconds, 1))`)" : "")
                + ".",
            "",
            "- Machine: \(machine.onlineCPUs) CPUs online (`nproc`: \(machine.allowedCPUs)), \(machine.cpuModel), \(machine.kernel)",
            "- Toolchain: \(machine.swiftVersion), `-c release`",
            "- Thread placement: \(placement.summary)",
            "",
            "> These numbers come from a shared, noisy \(cores) machine (other work runs beside it, and the "
                + "benchmark's own threads outnumber the cores). Read them as orders of magnitude and compare runs "
                + "made on the same machine; differences under about 20 % are noise.",
            "",
            markdownTables(),
            "",
            "How it is measured:",
            "",
            "- Times come from `ContinuousClock`. Nothing asserts on a time; every loop stops at a count or a deadline, "
                + "whichever comes first, so a slow configuration shows fewer jobs or calls per run rather than a longer run.",
            "- *Baseline* rows use no Fiber code: two plain threads waking each other through semaphores, and the same "
                + "64-byte echo over blocking sockets with one thread per side. They show what a wake-up and a loopback "
                + "round trip cost on this machine.",
            "- *ns/job end-to-end* runs from opening the start gate of the submitting threads until a sentinel job, "
                + "submitted after they all returned, runs on the loop (the inbox is FIFO, and the job counter is checked). "
                + "*Submit-side* is the time until the slowest submitter returned from its last `execute`. Each `execute` "
                + "takes the inbox lock once, an adaptive pthread mutex (it replaced `Synchronization.Mutex`, whose "
                + "priority-inheritance futex collapsed into a lock convoy with eight submitters on two cores: 21 k jobs/s "
                + "against 14 M with one). With more threads than cores, a many-thread row still pays for preemption "
                + "while a submitter holds the lock.",
            "- Actor calls go to an actor whose `unownedExecutor` is the loop. *Actor on the same loop* calls from another "
                + "actor pinned to the same loop; *…, task preferring the loop* makes the same call inside "
                + "`withTaskExecutorPreference(loop)`; *nonisolated code, task preferring the loop* calls from a nonisolated "
                + "function in such a task (it runs on the loop thread, but the call switches from the generic executor to "
                + "the actor's and back); *global pool* calls from `Task.detached`, a thread hop each way. No row changes "
                + "thread except the last, but a row can still pay for an enqueue on the loop per switch: the loop runs an "
                + "actor's job isolated to its serial executor (`runSynchronously(isolatedTo:taskExecutor:)`) and a task's "
                + "job unisolated (`runSynchronously(on:)`), so a switch from one kind of code to the other (nonisolated code "
                + "calling a loop actor, and back) enqueues instead of calling inline, and so does every switch of a task "
                + "with no executor preference, which never matches the loop.",
            "- Echo latency is one write of 64 bytes plus the reads until 64 bytes came back, per connection, measured on "
                + "the client; with 64 connections it includes the time a message waits behind the other connections' work on "
                + "the two loops, while the loops batch reads and writes, so throughput rises. Swift resumes every `CheckedContinuation` on the generic "
                + "executor; with *plain tasks* the generic executor is the global pool, so a read that had to wait "
                + "resumes there and hops back to its loop (two extra thread switches per read). With *tasks preferring "
                + "their loop* (`Task(executorPreference:)`, `addTask(executorPreference:)`) it stays on the loop.",
            "- Allocations are counted by a malloc interposer linked only into the benchmark binary "
                + "(`Benchmarks/Sources/CBenchSupport`): it defines `malloc`, `calloc`, `realloc`, `free` and the aligned "
                + "variants and forwards to glibc's `__libc_*` functions, counting calls in the whole process (client and "
                + "server, every thread) during separate, shorter runs, so the timed runs do not pay for the counting. "
                + "A `realloc` counts as an allocation.",
            "- Pinning: the binary pins threads itself with `sched_setaffinity`, not with `taskset` (which can only "
                + "confine the whole process, and the process already uses both cores): the loop under test (and the "
                + "echo server's loop, and the baselines' responder) on the first CPU, the single submitting thread (and "
                + "the echo client's loop, and the baselines' caller) on the second. Eight submitting threads, the global "
                + "pool and the main thread are left to the kernel. `--no-pin` turns pinning off; on this machine it "
                + "changed little.",
        ]
        if !notes.isEmpty {
            lines += [""] + notes.map { "- Note: \($0)" }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    static let documentHeader = """
    # Performance

    Benchmarks of Fiber, with the numbers of their last recorded run. Each section is written by its \
    benchmark; run them from the repository root:

    ```sh
    Scripts/bench-runtime            # the runtime: jobs, actor calls, loopback echo, allocations (1–2 minutes)
    Scripts/bench-runtime --quick    # a smoke run of a few seconds; writes nothing here
    ```

    The benchmarks live in their own package, `Benchmarks/`, which depends on the root package by path.

    """

    /// Replaces this report's section of the Markdown file at `path` (up to the next `## ` heading), or appends it.
    func updateDocs(at path: String) throws {
        let existing = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        var lines = existing.isEmpty ? Self.documentHeader.components(separatedBy: "\n") : existing.components(separatedBy: "\n")
        if lines.last == "" { lines.removeLast() }
        let section = markdownSection().components(separatedBy: "\n").dropLast()
        var inFence = false
        var start: Int?
        var end: Int?
        for (i, line) in lines.enumerated() {
            if line.hasPrefix("```") { inFence.toggle() }
            if inFence { continue }
            if start == nil, line.trimmingCharacters(in: .whitespaces) == Self.sectionTitle {
                start = i
            } else if start != nil, end == nil, line.hasPrefix("## ") {
                end = i
            }
        }
        if let start {
            let stop = end ?? lines.count
            var replacement = Array(section)
            if end != nil { replacement.append("") }
            lines.replaceSubrange(start..<stop, with: replacement)
        } else {
            if let last = lines.last, !last.isEmpty { lines.append("") }
            lines += section
        }
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
    }
}
