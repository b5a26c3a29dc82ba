import Fiber
import FiberRuntime

/// Collects what Fiber logs and traces, for assertions:
///
/// ```swift
/// let collector = TestTraceCollector()
/// let logging = LoggingInterceptor(logger: collector.logger())
/// // … requests …
/// #expect(collector.logs.count >= 2)
/// ```
///
/// It is also a `TraceExporter` (`$0.traceExporter = collector`), keeping the spans.
public final class TestTraceCollector: TraceExporter {
    /// One logged line.
    public struct LogEntry: Sendable {
        /// The level it was logged at.
        public let level: FiberLogLevel
        /// The line.
        public let message: String
        /// Its metadata (`trace`, and the trace's metadata).
        public let metadata: [String: String]
    }

    private struct State {
        var logs: [LogEntry] = []
        var spans: [Span] = []
    }

    private let state = Locked(State())

    /// An empty collector.
    public init() {}

    /// A logger whose lines (every level) land in `logs`.
    public func logger() -> any FiberLogger { CollectingLogger(collector: self) }

    /// Every line logged, in order.
    public var logs: [LogEntry] { state.withLock { $0.logs } }

    /// The messages of `logs`.
    public var messages: [String] { logs.map(\.message) }

    /// Every span exported, in order.
    public var spans: [Span] { state.withLock { $0.spans } }

    /// The distinct trace IDs seen in logs and spans.
    public var traceIDs: Set<String> {
        state.withLock { state in
            Set(state.logs.compactMap { $0.metadata["trace"] } + state.spans.map(\.traceID))
        }
    }

    /// Keeps `spans`.
    public func export(_ spans: [Span]) async { state.withLock { $0.spans += spans } }

    /// Forgets everything collected.
    public func reset() { state.withLock { $0 = State() } }

    fileprivate func append(_ entry: LogEntry) { state.withLock { $0.logs.append(entry) } }
}

private struct CollectingLogger: FiberLogger {
    let collector: TestTraceCollector

    func log(_ level: FiberLogLevel, _ message: String, metadata: [String: String]) {
        collector.append(.init(level: level, message: message, metadata: metadata))
    }
}
