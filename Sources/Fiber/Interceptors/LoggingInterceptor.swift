import Foundation
import FiberRuntime

/// Logs every request and response (or failure) with its trace ID:
///
/// ```
/// [HTTP] [→ GET /users] trace=A1B2C3D4
/// [HTTP] [← 200 OK] 42ms trace=A1B2C3D4
/// ```
///
/// Request and response lines are `.info` (`.warning` for 4xx and for failures,
/// which the caller receives as errors and judges; `.error` for 5xx). Header fields are logged at `.debug` with
/// `Authorization`, `Proxy-Authorization`, `Cookie` and `Set-Cookie`
/// redacted; with `logBody`, bodies too, cut at
/// `FiberDefaults.logBodyTruncationLimit` characters; with `logsCURL`, the request
/// as a `curl` command line. Streamed bodies are not read. Lines the logger would
/// drop are never built.
///
/// `privacy` says what each part may show: the path, the query (private by
/// default: `[→ GET /users?<private>]`), header values, bodies and the command
/// line; a hidden part is written as `<private>` or `<redacted>`, never its value.
public final class LoggingInterceptor: Interceptor, InlineInterceptor {
    /// `"logging"`.
    public let name = "logging"
    private let logger: any FiberLogger
    private let logBody: Bool
    private let prefix: String
    private let bodyLimit: Int
    private let privacy: LogPrivacyPolicy
    private let logsCURL: Bool

    /// Logs to `logger`; bodies only when `logBody`, the `curl` command line only when
    /// `logsCURL`; each part shown as `privacy` allows.
    public init(logger: any FiberLogger = SwiftLogFiberLogger(subsystem: "fiber"), logBody: Bool = false,
                defaults: FiberDefaults = .shared, privacy: LogPrivacyPolicy = LogPrivacyPolicy(), logsCURL: Bool = false) {
        self.logger = logger
        self.logBody = logBody
        self.privacy = privacy
        self.logsCURL = logsCURL
        self.prefix = "[\(defaults.loggingSystemName)]"
        self.bodyLimit = defaults.logBodyTruncationLimit
    }

    /// - Throws: what `next` throws (logged at `.warning` first).
    public func intercept(_ request: FiberRequest, next: @escaping InterceptorNext) async throws -> FiberResponse {
        try await run(request, next: InlineNext(next))
    }

    /// When the logger keeps none of this interceptor's lines, there is nothing to do.
    func handleAtOnce(_ request: FiberRequest) -> Bool { keepsNothing }

    /// Whether the logger keeps none of this interceptor's lines (not even errors).
    private var keepsNothing: Bool { !logger.isLogging(.error) }

    nonisolated(nonsending) func run(_ request: FiberRequest, next: InlineNext) async throws -> FiberResponse {
        // A logger that keeps none of these lines costs one question and nothing else.
        guard let lowest = lowestLevelKept() else { return try await next(request) }
        emit(.info, lowest) { trace in "[→ \(request.httpMethod) \(target(of: request))] trace=\(trace)" }
        details(headers: request.headers, body: logBody ? request.body : nil, lowest)
        if logsCURL { emit(.debug, lowest) { _ in "  \(privacy.render(request.cURL(), privacy.curlPrivacy(for: request)))" } }
        if logBody, lowest == .debug, let stream = request.bodyStream {
            // A streamed body is not read to be logged: only its size, when known.
            emit(.debug, lowest) { _ in "  Body: streamed, \(stream.knownLength.map { "\($0) bytes" } ?? "length unknown")" }
        }
        let start = MonotonicTime.now()
        do {
            let response = try await next(request)
            let level: FiberLogLevel = response.isServerError ? .error : response.isClientError ? .warning : .info
            emit(level, lowest) { trace in
                let reason = HTTPStatusText.phrase(for: response.statusCode)
                let status = reason.isEmpty ? "\(response.statusCode)" : "\(response.statusCode) \(reason)"
                return "[← \(status)] \(Self.milliseconds(since: start))ms trace=\(trace)"
            }
            details(headers: response.headers, body: logBody && !response.isStreamed ? response.data : nil, lowest)
            return response
        } catch {
            // Not `.error`: the error goes on to the caller, who decides whether it is one.
            emit(.warning, lowest) { trace in "[✗ \(error)] \(Self.milliseconds(since: start))ms trace=\(trace)" }
            throw error
        }
    }

    /// The least severe level of this interceptor's lines that the logger keeps, nil when it
    /// keeps none: asked once a request, from the most severe down, on the understanding
    /// that a logger which keeps a level keeps the levels above it (as thresholds do).
    private func lowestLevelKept() -> FiberLogLevel? {
        guard !keepsNothing else { return nil }
        if logger.isLogging(.debug) { return .debug }
        if logger.isLogging(.info) { return .info }
        return logger.isLogging(.warning) ? .warning : .error
    }

    private static func milliseconds(since start: MonotonicTime) -> Int {
        Int(((MonotonicTime.now() - start).seconds * 1000).rounded())
    }

    /// Writes a line with the prefix and the trace's metadata, building it (and
    /// reading the trace) only when the logger keeps lines of `level`.
    private func emit(_ level: FiberLogLevel, _ lowest: FiberLogLevel, _ message: (_ trace: String) -> String) {
        guard level >= lowest else { return }
        let trace = TraceContext.traceID
        var metadata = TraceContext.metadata
        metadata["trace"] = trace
        logger.log(level, "\(prefix) \(message(trace))", metadata: metadata)
    }

    private func details(headers: HTTPHeaders, body: Data?, _ lowest: FiberLogLevel) {
        guard lowest == .debug else { return }
        for field in headers {
            let level = LogRedaction.isSensitive(field.name) ? LogPrivacy.sensitive : privacy.headers
            emit(.debug, lowest) { _ in "  \(field.name): \(privacy.render(field.value, level))" }
        }
        if let body, !body.isEmpty {
            emit(.debug, lowest) { _ in "  Body: \(privacy.render(LogRedaction.body(body, limit: bodyLimit), privacy.body))" }
        }
    }

    /// The path, and the query when there is one, each as the policy shows it.
    private func target(of request: FiberRequest) -> String {
        let path = privacy.render(request.url.path, privacy.path)
        guard let query = request.url.query, !query.isEmpty else { return path }
        return path + "?" + privacy.render(query, privacy.query)
    }
}
