import Foundation

/// A logger for an application's own lines about its network calls, with the
/// privacy of each line or value chosen by the caller; it writes through a
/// `FiberLogger` (swift-log by default), redacting before the line leaves.
///
/// ```swift
/// let logger = NetworkLogger()
/// logger.logMessage(message: "Bootstrapping network layer", level: .info, logPrivacy: .public)
/// logger.log("retry #\(attempt, privacy: .public) for user \(userID, privacy: .private)", level: .info)
/// logger.cURLLog(request: request)
/// ```
public struct NetworkLogger: Sendable {
    /// Where lines go.
    public let logger: any FiberLogger
    /// How values are shown.
    public let privacy: LogPrivacyPolicy

    /// A logger writing to `logger` (default: swift-log, label `fiber`) under `privacy`.
    public init(logger: any FiberLogger = SwiftLogFiberLogger(subsystem: "fiber"), privacy: LogPrivacyPolicy = LogPrivacyPolicy()) {
        self.logger = logger
        self.privacy = privacy
    }

    /// Writes `message` whole at `logPrivacy` (`.public` shows it; the others hide it).
    public func logMessage(message: String, level: FiberLogLevel = .info, logPrivacy: LogPrivacy = .auto) {
        logger.log(level, FiberLogMessage(message, privacy: logPrivacy), privacy: privacy)
    }

    /// Writes `message`, each interpolated value at its own privacy.
    public func log(_ message: FiberLogMessage, level: FiberLogLevel = .info) {
        logger.log(level, message, privacy: privacy)
    }

    /// Writes the request as a `curl` command line at `.debug`, credentials redacted,
    /// the whole line at the policy's `curlPrivacy(for:)`.
    public func cURLLog(request: FiberRequest) {
        logger.log(.debug, FiberLogMessage(request.cURL(), privacy: privacy.curlPrivacy(for: request)), privacy: privacy)
    }
}
