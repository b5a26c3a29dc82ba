import Foundation
import FiberRuntime

/// Logs every request and response (or failure) with its trace ID:
///
/// ```
/// [HTTP] [→ GET /users] trace=A1B2C3D4
/// [HTTP] [← 200 OK] 42ms trace=A1B2C3D4
/// ```
///
/// Request and response lines are `.info` (`.warning` for 4xx, `.error` for
/// 5xx and failures). Header fields are logged at `.debug` with
/// `Authorization`, `Proxy-Authorization`, `Cookie` and `Set-Cookie`
/// redacted; with `logBody`, bodies too, cut at
/// `FiberDefaults.logBodyTruncationLimit` characters. Streamed bodies are not
/// read. Lines the logger would drop are never built.
public final class LoggingInterceptor: Interceptor, InlineInterceptor {
    /// `"logging"`.
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
        try await run(request, next: InlineNext(next))
    }

    var step: InlineStep { .logging(self) }

    nonisolated(nonsending) func run(_ request: FiberRequest, next: InlineNext) async throws -> FiberResponse {
        emit(.info) { trace in "[→ \(request.httpMethod) \(request.url.path)] trace=\(trace)" }
        details(headers: request.headers, body: logBody ? request.body : nil)
        let start = MonotonicTime.now()
        do {
            let response = try await next(request)
            let level: FiberLogLevel = response.isServerError ? .error : response.isClientError ? .warning : .info
            emit(level) { trace in
                let reason = HTTPStatusText.phrase(for: response.statusCode)
                let status = reason.isEmpty ? "\(response.statusCode)" : "\(response.statusCode) \(reason)"
                return "[← \(status)] \(Self.milliseconds(since: start))ms trace=\(trace)"
            }
            details(headers: response.headers, body: logBody && !response.isStreamed ? response.data : nil)
            return response
        } catch {
            emit(.error) { trace in "[✗ \(error)] \(Self.milliseconds(since: start))ms trace=\(trace)" }
            throw error
        }
    }

    private static func milliseconds(since start: MonotonicTime) -> Int {
        Int(((MonotonicTime.now() - start).seconds * 1000).rounded())
    }

    /// Writes a line with the prefix and the trace's metadata, building it (and
    /// reading the trace) only when the logger keeps lines of `level`.
    private func emit(_ level: FiberLogLevel, _ message: (_ trace: String) -> String) {
        guard logger.isLogging(level) else { return }
        let trace = TraceContext.traceID
        var metadata = TraceContext.metadata
        metadata["trace"] = trace
        logger.log(level, "\(prefix) \(message(trace))", metadata: metadata)
    }

    private func details(headers: HTTPHeaders, body: Data?) {
        guard logger.isLogging(.debug) else { return }
        for field in LogRedaction.headers(headers) { emit(.debug) { _ in "  \(field)" } }
        if let body, !body.isEmpty { emit(.debug) { _ in "  Body: \(LogRedaction.body(body, limit: bodyLimit))" } }
    }
}
