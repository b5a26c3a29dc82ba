import Foundation

/// Logs every request and response (or failure) with its trace ID:
///
/// ```
/// [HTTP] [→ GET /users] trace=A1B2C3D4
/// [HTTP] [← 200 OK] 42ms trace=A1B2C3D4
/// ```
///
/// Header fields are logged at `.debug` with `Authorization`, `Cookie` and
/// `Set-Cookie` redacted; with `logBody`, bodies are logged too, cut at
/// `FiberDefaults.logBodyTruncationLimit` characters. Streamed bodies are not read.
public struct LoggingInterceptor: Interceptor {
    public let name = "logging"
    private let logger: any FiberLogger
    private let logBody: Bool
    private let prefix: String
    private let bodyLimit: Int

    /// Logs to `logger`; bodies only when `logBody`.
    public init(logger: any FiberLogger = SwiftLogFiberLogger(subsystem: "fiber"), logBody: Bool = false,
                defaults: FiberDefaults = .shared) {
        self.logger = logger
        self.logBody = logBody
        self.prefix = "[\(defaults.loggingSystemName)]"
        self.bodyLimit = defaults.logBodyTruncationLimit
    }

    /// - Throws: what `next` throws (logged at `.error` first).
    public func intercept(_ request: FiberRequest, next: @escaping InterceptorNext) async throws -> FiberResponse {
        let trace = TraceContext.traceID
        var metadata = TraceContext.metadata
        metadata["trace"] = trace
        logger.log(.info, "\(prefix) [→ \(request.httpMethod) \(request.url.path)] trace=\(trace)", metadata: metadata)
        let details = logger.isLogging(.debug)
        if details {
            for line in LogRedaction.headers(request.headers) { logger.log(.debug, "\(prefix)   \(line)", metadata: metadata) }
        }
        if details, logBody, let body = request.body, !body.isEmpty {
            logger.log(.debug, "\(prefix)   Body: \(LogRedaction.body(body, limit: bodyLimit))", metadata: metadata)
        }
        let start = ContinuousClock.now
        do {
            let response = try await next(request)
            let ms = Int(((ContinuousClock.now - start).seconds * 1000).rounded())
            let reason = HTTPStatusText.phrase(for: response.statusCode)
            let status = reason.isEmpty ? "\(response.statusCode)" : "\(response.statusCode) \(reason)"
            let level: FiberLogLevel = response.isServerError ? .error : response.isClientError ? .warning : .info
            logger.log(level, "\(prefix) [← \(status)] \(ms)ms trace=\(trace)", metadata: metadata)
            if details {
                for line in LogRedaction.headers(response.headers) { logger.log(.debug, "\(prefix)   \(line)", metadata: metadata) }
            }
            if details, logBody, !response.isStreamed, !response.data.isEmpty {
                logger.log(.debug, "\(prefix)   Body: \(LogRedaction.body(response.data, limit: bodyLimit))", metadata: metadata)
            }
            return response
        } catch {
            let ms = Int(((ContinuousClock.now - start).seconds * 1000).rounded())
            logger.log(.error, "\(prefix) [✗ \(error)] \(ms)ms trace=\(trace)", metadata: metadata)
            throw error
        }
    }
}
