/// How important a log line is.
public enum FiberLogLevel: Int, Sendable, Comparable, CaseIterable {
    /// Detail for debugging: header fields, bodies.
    case debug
    /// The normal course of things: a request, a response.
    case info
    /// Something a person may want to look at: a 4xx.
    case warning
    /// A failure: a 5xx, an error.
    case error

    /// Orders levels from `debug` to `error`.
    public static func < (a: FiberLogLevel, b: FiberLogLevel) -> Bool { a.rawValue < b.rawValue }
}

/// Where Fiber's log lines go: `SwiftLogFiberLogger` (swift-log),
/// `PrintFiberLogger` (standard output), or your own.
public protocol FiberLogger: Sendable {
    /// Writes one line; `metadata` carries structured context (trace ID, status, …).
    func log(_ level: FiberLogLevel, _ message: String, metadata: [String: String])

    /// False when lines of `level` would be dropped, so callers can skip
    /// building them (default: true).
    func isLogging(_ level: FiberLogLevel) -> Bool
}

extension FiberLogger {
    /// Writes one line without metadata.
    public func log(_ level: FiberLogLevel, _ message: String) { log(level, message, metadata: [:]) }

    /// Every level is logged unless the logger says otherwise.
    public func isLogging(_ level: FiberLogLevel) -> Bool { true }
}
