import FiberRuntime
import Foundation
import Histogram

/// The result of a load test: counts, rate, latency percentiles (overall and
/// per transport phase) and the error tally; printable as a table and
/// encodable as JSON.
public struct LoadReport: Sendable, Codable {
    /// Latency percentiles of one histogram, in microseconds.
    public struct Percentiles: Sendable, Codable, Hashable {
        public var count: UInt64
        public var min: UInt64
        public var mean: Double
        public var p50: UInt64
        public var p90: UInt64
        public var p99: UInt64
        public var p999: UInt64
        public var max: UInt64

        init(_ histogram: Histogram<UInt64>) {
            count = histogram.totalCount
            min = histogram.totalCount == 0 ? 0 : histogram.min
            mean = histogram.totalCount == 0 ? 0 : histogram.mean
            p50 = histogram.valueAtPercentile(50)
            p90 = histogram.valueAtPercentile(90)
            p99 = histogram.valueAtPercentile(99)
            p999 = histogram.valueAtPercentile(99.9)
            max = histogram.totalCount == 0 ? 0 : histogram.max
        }
    }

    /// The schedule, as text ("closed loop, 16 workers", "open loop, 500/s").
    public var schedule: String
    /// Completed requests.
    public var succeeded: Int
    /// Failed requests.
    public var failed: Int
    /// Failed requests by kind.
    public var errors: [String: Int]
    /// Responses by HTTP status.
    public var statuses: [Int: Int]
    /// Body bytes received.
    public var bytes: Int
    /// The timed run's length in seconds.
    public var seconds: Double
    /// Completed requests a second.
    public var requestsPerSecond: Double
    /// Latency of completed requests (from the intended start in an open loop).
    public var latency: Percentiles
    /// The transport's phases, where the operation reported them.
    public var phases: [String: Percentiles]
    /// True when latencies are corrected for coordinated omission (open loop).
    public var correctedForCoordinatedOmission: Bool
    /// The latency histogram itself, in microseconds, for the full percentile
    /// spectrum (`percentileSpectrum`, `hgrm`). Not part of the JSON form.
    public var latencyHistogram = LoadRecorder.histogram()

    private enum CodingKeys: String, CodingKey {
        case schedule, succeeded, failed, errors, statuses, bytes, seconds, requestsPerSecond, latency, phases
        case correctedForCoordinatedOmission
    }

    init(schedule: LoadSchedule, recorder: LoadRecorder, elapsed: Duration) {
        self.schedule = schedule.summary
        succeeded = recorder.succeeded
        failed = recorder.failed
        errors = recorder.errors
        statuses = recorder.statuses
        bytes = recorder.bytes
        seconds = elapsed.seconds
        requestsPerSecond = seconds > 0 ? Double(recorder.succeeded) / seconds : 0
        latency = Percentiles(recorder.latency)
        latencyHistogram = recorder.latency
        phases = Dictionary(uniqueKeysWithValues: recorder.phases.map { ($0.key.rawValue, Percentiles($0.value)) })
        correctedForCoordinatedOmission = schedule.isOpenLoop
    }

    /// The report as JSON text.
    ///
    /// - Throws: `EncodingError` (not expected for this type).
    public func json() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }

    /// A table for people: rate, percentiles, phases, errors.
    public var table: String {
        func ms(_ micros: UInt64) -> String { String(format: "%.3f ms", Double(micros) / 1000) }
        var lines = [
            "\(schedule): \(succeeded) requests in \(String(format: "%.2f", seconds)) s, \(String(format: "%.0f", requestsPerSecond)) req/s, \(failed) errors",
            "latency\(correctedForCoordinatedOmission ? " (corrected for coordinated omission)" : ""):",
        ]
        let columns = [("min", latency.min), ("p50", latency.p50), ("p90", latency.p90), ("p99", latency.p99),
                       ("p99.9", latency.p999), ("max", latency.max)]
        for (name, value) in columns { lines.append("  \(name.padding(toLength: 6, withPad: " ", startingAt: 0)) \(ms(value))") }
        let ordered = LoadPhase.allCases.compactMap { phase in phases[phase.rawValue].map { (phase, $0) } }
        if !ordered.isEmpty {
            lines.append("phases (p50 / p99, over the requests that had them):")
            for (phase, p) in ordered {
                lines.append("  \(phase.rawValue.padding(toLength: 10, withPad: " ", startingAt: 0)) \(ms(p.p50)) / \(ms(p.p99))  (\(p.count))")
            }
        }
        if !statuses.isEmpty {
            lines.append("statuses: " + statuses.sorted { $0.key < $1.key }.map { "\($0.key) × \($0.value)" }.joined(separator: ", "))
        }
        if !errors.isEmpty {
            lines.append("errors:")
            for (kind, count) in errors.sorted(by: { $0.value > $1.value }) { lines.append("  \(count) × \(kind)") }
        }
        return lines.joined(separator: "\n")
    }
}

extension LoadSchedule {
    /// The schedule in a few words.
    public var summary: String {
        switch self {
        case .closedLoop(let concurrency): "closed loop, \(concurrency) worker\(concurrency == 1 ? "" : "s")"
        case .constantRate(let rate, let limit): "open loop, \(String(format: "%g", rate))/s (at most \(limit) in flight)"
        case .ramp(let from, let to, let over, let limit):
            "open loop, ramp \(String(format: "%g", from))→\(String(format: "%g", to))/s over \(over) (at most \(limit) in flight)"
        }
    }
}
