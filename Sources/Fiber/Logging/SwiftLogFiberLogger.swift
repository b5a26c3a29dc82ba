import Logging

/// A `FiberLogger` writing to swift-log, the logging API of Swift on servers:
/// the service's logging backend decides where lines go.
public struct SwiftLogFiberLogger: FiberLogger {
    /// The swift-log logger lines go to.
    public let logger: Logger

    /// Lines go to a swift-log `Logger` labelled `subsystem` (`com.myapp`).
    public init(subsystem: String) { self.logger = Logger(label: subsystem) }

    /// Lines go to `logger`, with its level and metadata.
    public init(logger: Logger) { self.logger = logger }

    /// True when `logger`'s level lets `level` through.
    public func isLogging(_ level: FiberLogLevel) -> Bool { logger.logLevel <= Self.level(level) }

    /// Logs through swift-log at the matching level, `metadata` as string metadata.
    public func log(_ level: FiberLogLevel, _ message: String, metadata: [String: String]) {
        let level = Self.level(level)
        guard logger.logLevel <= level else { return }
        logger.log(level: level, "\(message)", metadata: metadata.isEmpty ? nil : metadata.mapValues { .string($0) })
    }

    private static func level(_ level: FiberLogLevel) -> Logger.Level {
        switch level {
        case .debug: .debug
        case .info: .info
        case .warning: .warning
        case .error: .error
        }
    }
}
