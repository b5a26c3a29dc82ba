import FiberRuntime
import Foundation
import Instrumentation
import Tracing

extension Fiber {
    /// Whether the service installed a swift-distributed-tracing instrument
    /// (`InstrumentationSystem.bootstrap`): then propagation is the instrument's
    /// and requests run in its spans. Read when a client is made, as
    /// swift-distributed-tracing asks a service to bootstrap at start, before making clients.
    static func hasInstrument() -> Bool {
        let instrument = InstrumentationSystem.instrument
        return !(instrument is NoOpInstrument) && !(instrument is NoOpTracer)
    }

    /// Runs one logical request (retries and waits included) inside a span of the
    /// installed tracer, named for its method, whose children are the spans of
    /// each attempt (`TransportStep`). `body` receives the request with its trace ID
    /// replaced by the tracer's (when the instrument propagates a W3C `traceparent`),
    /// so responses and log lines carry the ID the trace backend shows.
    func inRequestSpan(_ request: FiberRequest, _ body: (FiberRequest) async throws -> FiberResponse)
        async throws -> FiberResponse {
        let attributes = HTTPClientAttributes(method: request.httpMethod.rawValue, location: request.location)
        let span = startSpan(attributes.method, ofKind: .internal)
        var request = request
        if let traceID = TracePropagation.w3cTraceID(of: span.context) { request.traceID = traceID }
        if span.isRecording {
            span.attributes.record(attributes)
            span.attributes["fiber.trace_id"] = request.traceID
        }
        defer { span.end() }
        do {
            let response = try await ServiceContext.$current.withValue(span.context) {
                try await RequestAttempts.$current.withValue(RequestAttempts()) { try await body(request) }
            }
            span.record(response.statusCode)
            return response
        } catch {
            span.record(error)
            throw error
        }
    }

    /// Runs `body` and, when a `traceExporter` is configured, exports a Fiber
    /// `Span` for the request once it is done.
    func exportingSpan(_ request: FiberRequest, _ body: () async throws -> FiberResponse) async throws -> FiberResponse {
        guard let exporter = configuration.traceExporter else { return try await body() }
        var span = Span(name: "\(request.httpMethod) \(request.url.path)", traceID: request.traceID)
        do {
            let response = try await body()
            span.attributes["http.status_code"] = String(response.statusCode)
            span.attributes["http.response.status_code"] = String(response.statusCode)
            if let type = HTTPClientAttributes.errorType(status: response.statusCode) { span.attributes["error.type"] = type }
            await exporter.export([span.finish()])
            return response
        } catch {
            span.attributes["error"] = "\(error)"
            span.attributes["error.type"] = HTTPClientAttributes.errorType(error)
            await exporter.export([span.finish()])
            throw error
        }
    }
}

/// Counts the attempts of one logical request, so that each attempt's span says
/// how many were sent before it (`http.request.resend_count`).
final class RequestAttempts: Sendable {
    @TaskLocal static var current: RequestAttempts?
    private let sent = Locked(0)

    /// The number of attempts before this one.
    func next() -> Int { sent.withLock { count in defer { count += 1 }; return count } }
}

extension SpanAttributes {
    /// Records the request's HTTP client attributes (OpenTelemetry semantic conventions).
    mutating func record(_ attributes: HTTPClientAttributes) {
        self["http.request.method"] = attributes.method
        self["url.full"] = attributes.urlFull
        self["url.scheme"] = attributes.scheme
        self["server.address"] = attributes.serverAddress
        self["server.port"] = attributes.serverPort
    }
}

extension Tracing.Span {
    /// Records a response: its status, and for 4xx and 5xx `error.type` and an error status.
    func record(_ statusCode: Int) {
        guard isRecording else { return }
        attributes["http.response.status_code"] = statusCode
        if let type = HTTPClientAttributes.errorType(status: statusCode) {
            attributes["error.type"] = type
            setStatus(SpanStatus(code: .error))
        }
    }

    /// Records a failure: the error, its `error.type` and an error status.
    func record(_ error: any Error) {
        guard isRecording else { return }
        recordError(error)
        attributes["error.type"] = HTTPClientAttributes.errorType(error)
        if case .httpError(let status, _, _)? = error as? FiberError { attributes["http.response.status_code"] = status }
        setStatus(SpanStatus(code: .error))
    }
}
