import FiberRuntime
import Foundation

/// A timed operation within a trace.
///
/// ```swift
/// var span = Span(name: "parseResponse")
/// // … do work …
/// let finished = span.finish()
/// print("Took \(finished.durationMs ?? 0)ms")
/// ```
public struct Span: Sendable, Identifiable {
    /// A random 16-hex-digit ID.
    public let id: String
    /// What was measured.
    public let name: String
    /// The trace it belongs to (`TraceContext.traceID` when it started).
    public let traceID: String
    /// Context when it started (`TraceContext.metadata`) plus what the owner added.
    public var attributes: [String: String]
    /// Wall-clock start, for exporters.
    public let startTime: Date
    /// Wall-clock end, once finished.
    public private(set) var endTime: Date?
    /// How long it took, in milliseconds, once finished (measured on a monotonic clock).
    public private(set) var durationMs: Double?
    /// A `MonotonicTime`, not an `Instant`: so a span has a size known when compiled.
    private let started: MonotonicTime

    /// Starts a span now, in the current trace.
    public init(name: String, traceID: String = TraceContext.traceID, attributes: [String: String] = TraceContext.metadata) {
        self.id = RandomID.spanID()
        self.name = name
        self.traceID = traceID
        self.attributes = attributes
        self.startTime = Date()
        self.started = MonotonicTime.now()
    }

    /// True once `finish()` was called.
    public var isFinished: Bool { durationMs != nil }

    /// Ends the span now (the first call counts) and returns it.
    @discardableResult
    public mutating func finish() -> Span {
        guard durationMs == nil else { return self }
        durationMs = (MonotonicTime.now() - started).seconds * 1000
        endTime = Date()
        return self
    }
}

extension String {
    func leftPadded(to width: Int, with pad: Character = "0") -> String {
        count >= width ? self : String(repeating: pad, count: width - count) + self
    }
}
