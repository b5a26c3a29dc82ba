/// How important a log line is.
public enum FiberLogLevel: Int, Sendable, Comparable, CaseIterable {
    case debug, info, warning, error

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

    public func isLogging(_ level: FiberLogLevel) -> Bool { true }
}
