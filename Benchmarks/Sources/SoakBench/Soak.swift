import Fiber
import FiberRuntime
import HTTPBenchKit
import Synchronization

/// The HTTP soak of `Scripts/soak`: `requests` keep-alive GETs through the `Fiber`
/// API that users call (`Fiber(origin) { $0.http… }.get(path)`), from `concurrency`
/// plain tasks, with the process's resident memory sampled every `sampleEvery`
/// completed requests and the client's pool statistics at the end. Prints one
/// `SOAK_RESULT {json}` line. Bounded by the request count and by `timeLimit`
/// (the watchdog ends the process after it).
struct Soak: Sendable {
    var url = ""
    var requests = 1_000_000
    var concurrency = 64
    var sampleEvery = 100_000
    var caFile: String?
    var timeLimitSeconds = 600.0
    var expectBytes: Int?

    /// One point of the RSS series.
    struct Sample: Sendable {
        let requests: Int
        let residentBytes: Int
        let seconds: Double
    }

    func run() async {
        HTTPBench.startWatchdog(seconds: timeLimitSeconds, what: "the soak of \(url)")
        let (origin, path) = splitOrigin(url)
        let concurrency = self.concurrency
        let caFile = self.caFile
        let fiber = Fiber(origin) {
            $0.http.maxConnectionsPerHost = concurrency
            if let caFile { $0.http.tls.trustRoots = .file(caFile) }
        }
        let expectBytes = self.expectBytes
        let request: @Sendable () async throws -> Void = {
            let response = try await fiber.get(path)
            guard response.statusCode == 200 else { throw SoakError("status \(response.statusCode)") }
            if let expectBytes, response.data.count != expectBytes {
                throw SoakError("a body of \(response.data.count) bytes, expected \(expectBytes)")
            }
        }
        do { try await request() } catch { HTTPBench.die("the first request failed: \(error)") }

        let clock = ContinuousClock()
        let start = clock.now
        let heapAtStart = heapBytesInUse()
        // Allocations not freed from here to after the shutdown: objects the requests left behind.
        AllocationCounter.start()
        let state = Progress(budget: requests, first: Sample(requests: 0, residentBytes: residentBytes(), seconds: 0))
        let sampleEvery = self.sampleEvery
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<concurrency {
                group.addTask {
                    while state.budget.subtract(1, ordering: .relaxed).newValue >= 0 {
                        do {
                            try await request()
                        } catch {
                            state.firstError.withLock { if $0 == nil { $0 = "\(error)" } }
                            // A failing client must not spin: a few errors end the soak.
                            if state.failures.add(1, ordering: .relaxed).newValue >= 10 { state.budget.store(0, ordering: .relaxed) }
                        }
                        let done = state.completed.add(1, ordering: .relaxed).newValue
                        if done % sampleEvery == 0 {
                            let sample = Sample(requests: done, residentBytes: residentBytes(), seconds: secondsOf(clock.now - start))
                            state.samples.withLock { $0.append(sample) }
                        }
                    }
                }
            }
        }
        let elapsed = secondsOf(clock.now - start)
        let statistics = await fiber.connectionStatistics() ?? ConnectionPoolStatistics()
        let heapBeforeShutdown = heapBytesInUse()
        _ = await fiber.shutdown(gracePeriod: .seconds(5))
        try? await Task.sleep(for: .seconds(1))
        let counts = AllocationCounter.stop()
        let series = state.samples.withLock { $0 }.sorted { $0.requests < $1.requests }
        report(series: series, completed: state.completed.load(ordering: .relaxed),
               failures: state.failures.load(ordering: .relaxed), firstError: state.firstError.withLock { $0 },
               seconds: elapsed, statistics: statistics,
               heap: (start: heapAtStart, beforeShutdown: heapBeforeShutdown, afterShutdown: heapBytesInUse()),
               allocationsLeft: Int(counts.allocations) - Int(counts.frees))
    }

    /// Prints the `SOAK_RESULT` line: the series, the drift after the first sample past
    /// zero (the warm-up), the rate and the pool's counts.
    private func report(series: [Sample], completed: Int, failures: Int, firstError: String?, seconds: Double,
                        statistics: ConnectionPoolStatistics, heap: (start: Int, beforeShutdown: Int, afterShutdown: Int), allocationsLeft: Int) {
        let settled = series.first { $0.requests > 0 }
        let later = series.filter { $0.requests > (settled?.requests ?? .max) }
        var drift: Double?
        if let settled, !later.isEmpty {
            let largest = later.map { abs($0.residentBytes - settled.residentBytes) }.max() ?? 0
            drift = Double(largest) / Double(settled.residentBytes) * 100
        }
        let points = series.map { "[\($0.requests),\($0.residentBytes),\(rounded($0.seconds))]" }
        let fields = [
            "\"url\":\"\(url)\"",
            "\"concurrency\":\(concurrency)",
            "\"requests\":\(completed)",
            "\"errors\":\(failures)",
            "\"first_error\":\(firstError.map { "\"\(escaped($0))\"" } ?? "null")",
            "\"seconds\":\(rounded(seconds))",
            "\"rps\":\(rounded(seconds > 0 ? Double(completed) / seconds : 0))",
            "\"rss\":[\(points.joined(separator: ","))]",
            "\"drift_percent\":\(drift.map(rounded) ?? "null")",
            "\"pool\":{\"open\":\(statistics.open),\"idle\":\(statistics.idle),\"leased\":\(statistics.leased),"
                + "\"connecting\":\(statistics.connecting),\"waiting\":\(statistics.waiting)}",
            "\"heap\":{\"start\":\(heap.start),\"before_shutdown\":\(heap.beforeShutdown),\"after_shutdown\":\(heap.afterShutdown)}",
            "\"allocations_left_after_shutdown\":\(allocationsLeft)",
        ]
        print("SOAK_RESULT {\(fields.joined(separator: ","))}")
    }
}

/// What the request loops share: the requests left, those done, the failures and the series.
private final class Progress: Sendable {
    let budget: Atomic<Int>
    let completed = Atomic(0)
    let failures = Atomic(0)
    let firstError = Mutex<String?>(nil)
    let samples: Mutex<[Soak.Sample]>

    init(budget: Int, first: Soak.Sample) {
        self.budget = Atomic(budget)
        samples = Mutex([first])
    }
}

struct SoakError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

func rounded(_ v: Double) -> String { "\((v * 1000).rounded() / 1000)" }

private func escaped(_ s: String) -> String {
    String(s.unicodeScalars.map { $0 == "\"" || $0 == "\\" || $0.value < 0x20 ? " " : Character($0) })
}

