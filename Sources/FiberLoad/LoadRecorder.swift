import FiberRuntime
import Histogram

/// What part of a request a latency histogram measures.
///
/// The setup phases (`dns`, `connect`, `tls`) are those of the requests that
/// waited for a new connection. A pool may open a connection for a waiting
/// request and then serve that request with a connection freed first; the
/// new one waits idle, and until a request uses it no request reports its
/// setup. So these phases can count fewer connections than the server saw.
public enum LoadPhase: String, Sendable, Hashable, CaseIterable, Codable {
    /// Name resolution (requests on a new connection only).
    case dns
    /// TCP connect (requests on a new connection only).
    case connect
    /// TLS handshake (requests on a new TLS connection only).
    case tls
    /// Until the first byte of the response.
    case firstByte
    /// The whole request as the transport saw it.
    case transport
}

/// Tallies of one load test (or one worker of it): a latency histogram in
/// microseconds, one per transport phase, counts by status and by error kind.
/// A value: each worker records into its own and the generator merges them
/// at the end, so recording takes no lock.
public struct LoadRecorder: Sendable {
    /// Latency of every completed request in microseconds, from its intended
    /// start in an open loop (coordinated omission corrected), else from its send.
    public private(set) var latency = LoadRecorder.histogram()
    /// The transport's phases, in microseconds, where the operation reported timings.
    public private(set) var phases: [LoadPhase: Histogram<UInt64>] = [:]
    /// Completed requests.
    public private(set) var succeeded = 0
    /// Failed requests by kind.
    public private(set) var errors: [String: Int] = [:]
    /// Responses by HTTP status.
    public private(set) var statuses: [Int: Int] = [:]
    /// Body bytes received.
    public private(set) var bytes = 0

    /// An empty recorder.
    public init() {}

    /// Up to an hour, three significant digits.
    static func histogram() -> Histogram<UInt64> {
        Histogram<UInt64>(highestTrackableValue: 3_600_000_000, numberOfSignificantValueDigits: .three)
    }

    /// Records a success that took `latency`.
    public mutating func record(_ sample: LoadSample, latency: Duration) {
        succeeded += 1
        bytes += sample.bytes
        _ = self.latency.record(Self.microseconds(latency))
        if let status = sample.status { statuses[status, default: 0] += 1 }
        guard let timing = sample.timing else { return }
        let measured: [(LoadPhase, Duration?)] = [(.dns, timing.dns), (.connect, timing.connect), (.tls, timing.tls),
                                                  (.firstByte, timing.firstByte), (.transport, timing.total)]
        for case let (phase, duration?) in measured {
            _ = phases[phase, default: Self.histogram()].record(Self.microseconds(duration))
        }
    }

    /// Records a failure of `kind` (its latency is not in the histogram).
    public mutating func recordFailure(kind: String) {
        errors[kind, default: 0] += 1
    }

    /// Adds `other`'s tallies to these.
    public mutating func merge(_ other: LoadRecorder) {
        latency.add(other.latency)
        for (phase, histogram) in other.phases { phases[phase, default: Self.histogram()].add(histogram) }
        succeeded += other.succeeded
        bytes += other.bytes
        errors.merge(other.errors, uniquingKeysWith: +)
        statuses.merge(other.statuses, uniquingKeysWith: +)
    }

    /// Failed requests in all.
    public var failed: Int { errors.values.reduce(0, +) }

    static func microseconds(_ duration: Duration) -> UInt64 {
        let (seconds, attoseconds) = duration.components
        let micros = seconds * 1_000_000 + attoseconds / 1_000_000_000_000
        return UInt64(clamping: max(0, micros))
    }
}
