import FiberRuntime
import Synchronization

/// A load generator for a user's own harness: runs an async operation (one
/// request) on a schedule for a bounded time and count, and reports latency
/// percentiles, the transport's phases, statuses and errors.
///
/// ```swift
/// let client = HTTPClient()
/// let test = LoadTest(schedule: .closedLoop(concurrency: 16), duration: .seconds(5))
/// let report = await test.run(on: .shared) {
///     let response = try await client.execute(HTTPClientRequest(url: "http://127.0.0.1:8080/"))
///     return LoadSample(status: response.status, bytes: response.body.count, timing: response.timing)
/// }
/// print(report.table)
/// ```
///
/// Every run is bounded: it schedules nothing after `duration` and no more
/// than `maxRequests`, then waits for the requests in flight (which the
/// operation's own timeouts bound).
public struct LoadTest: Sendable {
    /// When requests start.
    public var schedule: LoadSchedule
    /// How long requests are started for.
    public var duration: Duration
    /// At most this many requests (nil: as many as fit in `duration`).
    public var maxRequests: Int?
    /// Untimed, unrecorded requests first (closed loop with the schedule's in-flight limit), to open connections.
    public var warmup: Duration

    /// A load test of `schedule` for `duration`, at most `maxRequests` requests, after `warmup`.
    public init(schedule: LoadSchedule, duration: Duration, maxRequests: Int? = nil, warmup: Duration = .zero) {
        self.schedule = schedule
        self.duration = duration
        self.maxRequests = maxRequests
        self.warmup = warmup
    }

    /// What `progress` hears, about once per `progressInterval`.
    public struct Progress: Sendable {
        /// Time since the timed run started.
        public var elapsed: Duration
        /// Requests completed so far.
        public var completed: Int
        /// Requests failed so far.
        public var failed: Int
        /// The rate over the last interval, requests a second.
        public var recentRate: Double
    }

    /// Runs the test. Requests run in tasks that prefer `group`'s loops in
    /// turn (so a request on the runtime costs no thread hop), or on the
    /// global executor without a group. An operation succeeds by returning a
    /// sample and fails by throwing (tallied by `LoadFailure.kind(of:)`).
    public func run(
        on group: EventLoopGroup? = nil,
        progressInterval: Duration = .seconds(1),
        progress: (@Sendable (Progress) -> Void)? = nil,
        _ operation: @escaping @Sendable () async throws -> LoadSample
    ) async -> LoadReport {
        let executors: [any TaskExecutor] = group?.loops ?? []
        if warmup > .zero {
            let warm = LoadTest(schedule: .closedLoop(concurrency: schedule.maxInFlight), duration: warmup, maxRequests: nil)
            _ = await warm.closedLoop(workers: schedule.maxInFlight, executors: executors, counters: LoadCounters(), operation)
        }
        let counters = LoadCounters()
        let start = ContinuousClock.now
        let recorder = await withTaskGroup(of: LoadRecorder?.self) { tasks in
            if let progress {
                tasks.addTask { await Self.report(progress, every: progressInterval, from: start, counters: counters); return nil }
            }
            tasks.addTask {
                switch schedule {
                case .closedLoop(let concurrency):
                    await closedLoop(workers: max(1, concurrency), executors: executors, counters: counters, operation)
                case .constantRate, .ramp:
                    await openLoop(start: start, executors: executors, counters: counters, operation)
                }
            }
            var result = LoadRecorder()
            for await recorder in tasks {
                guard let recorder else { continue }
                result = recorder
                tasks.cancelAll()  // the progress reporter
            }
            return result
        }
        return LoadReport(schedule: schedule, recorder: recorder, elapsed: .now - start)
    }

    // MARK: Closed loop

    private func closedLoop(workers: Int, executors: [any TaskExecutor], counters: LoadCounters,
                            _ operation: @escaping @Sendable () async throws -> LoadSample) async -> LoadRecorder {
        let deadline = ContinuousClock.now + duration
        let limit = maxRequests ?? Int.max
        return await withTaskGroup(of: LoadRecorder.self) { tasks in
            for worker in 0..<workers {
                let executor = executors.isEmpty ? nil : executors[worker % executors.count]
                tasks.addTask(executorPreference: executor) {
                    var recorder = LoadRecorder()
                    while ContinuousClock.now < deadline, !Task.isCancelled, counters.claim(limit: limit) {
                        let sent = ContinuousClock.now
                        Self.record(await Self.attempt(operation), latency: .now - sent, into: &recorder, counters: counters)
                    }
                    return recorder
                }
            }
            var all = LoadRecorder()
            for await recorder in tasks { all.merge(recorder) }
            return all
        }
    }

    // MARK: Open loop

    private enum Outcome: Sendable {
        case success(LoadSample)
        case failure(String)
    }

    private func openLoop(start: ContinuousClock.Instant, executors: [any TaskExecutor], counters: LoadCounters,
                          _ operation: @escaping @Sendable () async throws -> LoadSample) async -> LoadRecorder {
        let limit = maxRequests ?? Int.max
        let maxInFlight = schedule.maxInFlight
        return await withTaskGroup(of: (Outcome, Duration).self) { tasks in
            var recorder = LoadRecorder()
            var inFlight = 0
            var index = 0
            while index < limit, !Task.isCancelled, let offset = schedule.intendedStart(of: index), offset < duration {
                if inFlight >= maxInFlight, let (outcome, latency) = await tasks.next() {
                    Self.record(outcome, latency: latency, into: &recorder, counters: counters)
                    inFlight -= 1
                }
                let intended = start + offset
                if intended > .now { try? await Task.sleep(until: intended, clock: .continuous) }
                let executor = executors.isEmpty ? nil : executors[index % executors.count]
                tasks.addTask(executorPreference: executor) {
                    let outcome = await Self.attempt(operation)
                    // From when it should have started: waiting for a free slot counts.
                    return (outcome, .now - intended)
                }
                counters.issued.add(1, ordering: .relaxed)
                inFlight += 1
                index += 1
            }
            for await (outcome, latency) in tasks {
                Self.record(outcome, latency: latency, into: &recorder, counters: counters)
            }
            return recorder
        }
    }

    // MARK: Shared

    private static func attempt(_ operation: @Sendable () async throws -> LoadSample) async -> Outcome {
        do {
            return .success(try await operation())
        } catch {
            return .failure(LoadFailure.kind(of: error))
        }
    }

    private static func record(_ outcome: Outcome, latency: Duration, into recorder: inout LoadRecorder, counters: LoadCounters) {
        switch outcome {
        case .success(let sample):
            recorder.record(sample, latency: latency)
            counters.completed.add(1, ordering: .relaxed)
        case .failure(let kind):
            recorder.recordFailure(kind: kind)
            counters.failed.add(1, ordering: .relaxed)
        }
    }

    private static func report(_ progress: @Sendable (Progress) -> Void, every interval: Duration, from start: ContinuousClock.Instant,
                               counters: LoadCounters) async {
        var last = (time: start, completed: 0)
        while !Task.isCancelled {
            try? await Task.sleep(for: interval)
            guard !Task.isCancelled else { return }
            let now = ContinuousClock.now
            let completed = counters.completed.load(ordering: .relaxed)
            let seconds = (now - last.time) / .seconds(1)
            progress(Progress(elapsed: now - start, completed: completed, failed: counters.failed.load(ordering: .relaxed),
                              recentRate: seconds > 0 ? Double(completed - last.completed) / seconds : 0))
            last = (now, completed)
        }
    }
}

/// Counters every worker updates, read by the progress reporter.
final class LoadCounters: Sendable {
    let issued = Atomic<Int>(0)
    let completed = Atomic<Int>(0)
    let failed = Atomic<Int>(0)

    /// Takes one request of `limit`; false once they are all taken.
    func claim(limit: Int) -> Bool {
        issued.add(1, ordering: .relaxed).newValue <= limit
    }
}
