import FiberRuntime
#if canImport(Glibc)
import Glibc
#endif

/// Runs the selected benchmarks in order and collects a `Report`.
///
/// Sizes and time limits (full run; `--quick` divides counts by ten):
/// - cross-thread jobs: 1,000,000 jobs per run, at most 3 s per run;
/// - actor calls: 5 M / 2 M / 200 k calls per run, at most 1 / 1 / 2 s;
/// - baselines: 1 s per run;
/// - echo: `--echo-seconds` (2 s) per run after a warm-up (0.5 s before the
///   first run, 0.1 s before the others), at most 2,000,000 round trips;
/// - every timed benchmark runs `--runs` (3) times and reports the median run;
/// - allocation counts: separate, shorter runs with the counter on, so the
///   timed runs above do not pay for counting.
/// A full run takes about a minute.
struct Suite {
    let options: Options

    private var scale: Int { options.quick ? 10 : 1 }

    func run() async throws -> Report {
        let placement = Placement(enabled: options.pin)
        let machine = Machine.current()
        var report = Report(machine: machine, placement: placement, options: options)
        say(machine.summary)
        say("placement: \(placement.summary)")
        let countAllocations = options.parts.contains(.alloc) && AllocationCounter.works
        if options.parts.contains(.alloc), !AllocationCounter.works {
            say("warning: malloc interposition is not in effect; allocation counts are skipped")
            report.notes.append("Allocation counts were skipped: the malloc interposer did not see the Swift runtime's allocations.")
        }

        if options.parts.contains(.baseline) { try await baseline(placement, &report) }

        // Allocations are counted for the selected benchmarks; `--only alloc` alone counts them for all three.
        var counted = options.parts.intersection([.cross, .actor, .echo])
        if counted.isEmpty { counted = [.cross, .actor, .echo] }
        if !countAllocations { counted = [] }

        if options.parts.contains(.cross) || options.parts.contains(.actor) || counted.contains(.cross) || counted.contains(.actor) {
            let group = EventLoopGroup(loopCount: 1, name: "bench-loop")
            try await pin(group.loops[0], to: placement.cpu(forSide: 0))
            if options.parts.contains(.cross) { try await crossThread(group.loops[0], placement, &report) }
            if options.parts.contains(.actor) { try await actorCalls(group.loops[0], &report) }
            if counted.contains(.cross) { try await crossThreadAllocations(group.loops[0], placement, &report) }
            if counted.contains(.actor) { try await actorCallAllocations(group.loops[0], &report) }
            try await withDeadline(.seconds(10), "shutdown of the job loop") { try await group.shutdown() }
        }

        if options.parts.contains(.echo) || counted.contains(.echo) {
            let serverGroup = EventLoopGroup(loopCount: 1, name: "bench-server")
            let clientGroup = EventLoopGroup(loopCount: 1, name: "bench-client")
            try await pin(serverGroup.loops[0], to: placement.cpu(forSide: 0))
            try await pin(clientGroup.loops[0], to: placement.cpu(forSide: 1))
            for mode in EchoBenchmark.TaskMode.allCases {
                let server = try await EchoBenchmark.Server.start(on: serverGroup.loops[0], mode: mode)
                say("echo server (\(mode.rawValue)) listening on \(server.listener.localAddress)")
                if options.parts.contains(.echo) { try await echo(server, clientGroup.loops[0], &report) }
                if counted.contains(.echo) { try await echoAllocations(server, clientGroup.loops[0], &report) }
                await server.stop()
            }
            try await withDeadline(.seconds(10), "shutdown of the client loop") { try await clientGroup.shutdown() }
            try await withDeadline(.seconds(10), "shutdown of the server loop") { try await serverGroup.shutdown() }
        }
        return report
    }

    // MARK: 0. The machine without the runtime

    private func baseline(_ placement: Placement, _ report: inout Report) async throws {
        let limit = Duration.seconds(options.quick ? 0.3 : 1)
        let kinds: [@Sendable () throws -> BaselineBenchmark.Sample] = [
            { try BaselineBenchmark.threadPingPong(rounds: 500_000, limit: limit, placement: placement) },
            { try BaselineBenchmark.blockingSocketEcho(rounds: 500_000, limit: limit, placement: placement) },
        ]
        for kind in kinds {
            var samples: [BaselineBenchmark.Sample] = []
            for run in 1...options.runs {
                let sample = try await onThread(kind)
                samples.append(sample)
                say("baseline: \(sample.name), run \(run): \(sample.rounds) round trips in \(format(sample.elapsed)), "
                    + "\(grouped(sample.roundsPerSecond))/s, p50 \(fixed(sample.latencyMicroseconds(50), 1)) µs, "
                    + "p99 \(fixed(sample.latencyMicroseconds(99), 1)) µs")
            }
            report.baseline.append(samples)
        }
    }

    // MARK: 1. Cross-thread submission

    private func crossThread(_ loop: EventLoop, _ placement: Placement, _ report: inout Report) async throws {
        let jobs = 1_000_000 / scale
        for threads in options.threadCounts {
            // One submitting thread goes on the other CPU; eight float (they outnumber the CPUs anyway).
            let cpu = threads == 1 ? placement.cpu(forSide: 1) : nil
            _ = try await onThread {
                try CrossThreadBenchmark.run(on: loop, threads: threads, jobs: jobs / 10, limit: .seconds(options.quick ? 0.3 : 1),
                                             submitterCPU: cpu, countAllocations: false)
            }
            var samples: [CrossThreadBenchmark.Sample] = []
            for run in 1...options.runs {
                let sample = try await onThread {
                    try CrossThreadBenchmark.run(on: loop, threads: threads, jobs: jobs, limit: .seconds(options.quick ? 1 : 3),
                                                 submitterCPU: cpu, countAllocations: false)
                }
                samples.append(sample)
                say("cross-thread: \(threads) thread(s), run \(run): \(sample.jobs) jobs in \(format(sample.elapsed)), "
                      + "\(fixed(sample.nanosecondsPerJob, 1)) ns/job, \(grouped(sample.jobsPerSecond)) jobs/s")
            }
            report.crossThread.append(samples)
        }
    }

    // MARK: 2. Actor calls

    private func actorCalls(_ loop: EventLoop, _ report: inout Report) async throws {
        try await ActorCallBenchmark.verifyPlacement(on: loop)
        for caller in options.callers {
            let (calls, limit): (Int, Duration) = switch caller {
            case .sameLoopActor, .sameLoopActorPreferringLoop: (5_000_000 / scale, .seconds(1))
            case .taskExecutorPreference: (2_000_000 / scale, .seconds(1))
            case .globalPool: (200_000 / scale, .seconds(2))
            }
            _ = try await withDeadline(.seconds(30), "actor-call warm-up") {
                try await ActorCallBenchmark.run(caller, on: loop, calls: calls / 10, limit: limit / 10, countAllocations: false)
            }
            var samples: [ActorCallBenchmark.Sample] = []
            for run in 1...options.runs {
                let sample = try await withDeadline(limit + .seconds(30), "actor calls") {
                    try await ActorCallBenchmark.run(caller, on: loop, calls: calls, limit: limit, countAllocations: false)
                }
                samples.append(sample)
                say("actor calls from \(caller.rawValue), run \(run): \(sample.calls) calls in \(format(sample.elapsed)), "
                      + "\(fixed(sample.nanosecondsPerCall, 1)) ns/call")
            }
            report.actorCalls.append(samples)
        }
    }

    // MARK: 3. Echo

    private func echo(_ server: EchoBenchmark.Server, _ clientLoop: EventLoop, _ report: inout Report) async throws {
        let limit = Duration.milliseconds(Int64(options.echoSeconds * 1000))
        for connections in [1, 64] {
            var samples: [EchoBenchmark.Sample] = []
            for run in 1...options.runs {
                // Every run opens new connections; the first run warms the loops up for longer.
                let warmUp: Duration = options.quick ? .milliseconds(100) : run == 1 ? .milliseconds(500) : .milliseconds(100)
                let sample = try await withDeadline(limit + warmUp + .seconds(30), "echo with \(connections) connection(s)") {
                    try await EchoBenchmark.run(server: server, clientLoop: clientLoop, connections: connections,
                                                totalRounds: 2_000_000 / scale, limit: limit, warmUp: warmUp,
                                                record: true, countAllocations: false)
                }
                samples.append(sample)
                say("echo, \(server.mode.rawValue): \(connections) connection(s), run \(run): \(sample.roundTrips) round trips "
                    + "in \(format(sample.elapsed)), \(grouped(sample.roundTripsPerSecond))/s, "
                    + "p50 \(fixed(sample.latencyMicroseconds(50), 1)) µs, p99 \(fixed(sample.latencyMicroseconds(99), 1)) µs")
            }
            report.echo.append(samples)
        }
    }

    // MARK: 4. Allocations

    private func crossThreadAllocations(_ loop: EventLoop, _ placement: Placement, _ report: inout Report) async throws {
        for threads in options.threadCounts {
            let cpu = threads == 1 ? placement.cpu(forSide: 1) : nil
            let sample = try await onThread {
                try CrossThreadBenchmark.run(on: loop, threads: threads, jobs: 100_000 / scale, limit: .seconds(options.quick ? 1 : 3),
                                             submitterCPU: cpu, countAllocations: true)
            }
            report.crossThreadAllocations[threads] = sample
            say("allocations: cross-thread, \(threads) thread(s): \(perUnit(sample.allocations!, sample.jobs)) per job")
        }
    }

    private func actorCallAllocations(_ loop: EventLoop, _ report: inout Report) async throws {
        for caller in options.callers {
            let calls = (caller == .globalPool ? 20_000 : 100_000) / scale
            let sample = try await withDeadline(.seconds(30), "actor calls (allocation count)") {
                try await ActorCallBenchmark.run(caller, on: loop, calls: calls, limit: .seconds(3), countAllocations: true)
            }
            report.actorCallAllocations[caller] = sample
            say("allocations: actor calls from \(caller.rawValue): \(perUnit(sample.allocations!, sample.calls)) per call")
        }
    }

    private func echoAllocations(_ server: EchoBenchmark.Server, _ clientLoop: EventLoop, _ report: inout Report) async throws {
        for (connections, rounds) in [(1, 20_000), (64, 64 * 300)] {
            let sample = try await withDeadline(.seconds(40), "echo allocation count") {
                try await EchoBenchmark.run(server: server, clientLoop: clientLoop, connections: connections,
                                            totalRounds: rounds / scale, limit: .seconds(3), warmUp: .milliseconds(100),
                                            record: false, countAllocations: true)
            }
            report.echoAllocations[EchoKey(mode: server.mode, connections: connections)] = sample
            say("allocations: echo, \(server.mode.rawValue), \(connections) connection(s): \(perUnit(sample.allocations!, sample.roundTrips)) per round trip")
        }
    }
}

/// Runs blocking work on a thread of its own, so no cooperative-pool thread waits on semaphores.
func onThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { (c: CheckedContinuation<T, any Error>) in
        OSThread { c.resume(with: Result { try work() }) }.detach()
    }
}

func perUnit(_ counts: AllocationCounts, _ units: Int) -> String {
    let n = Double(max(units, 1))
    return "\(fixed(Double(counts.allocations) / n, 2)) allocations (\(fixed(Double(counts.frees) / n, 2)) frees, "
        + "\(fixed(Double(counts.bytes) / n, 0)) bytes)"
}

/// Prints a progress line at once, even when stdout is a pipe.
func say(_ line: String) {
    print(line)
    fflush(nil)
}
