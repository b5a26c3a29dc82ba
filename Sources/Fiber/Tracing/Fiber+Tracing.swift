import Foundation
import Instrumentation
import Tracing

extension Fiber {
    /// Whether the client's requests get spans: a trace exporter is configured or
    /// the service installed a tracer (with neither, a span would record nothing).
    /// Read when the client is made, as swift-distributed-tracing asks a
    /// service to bootstrap its tracer at start, before making clients.
    static func tracesRequests(_ configuration: Configuration) -> Bool {
        configuration.traceExporter != nil || !(InstrumentationSystem.tracer is NoOpTracer)
    }

    /// Runs one request inside a client span of swift-distributed-tracing (so a
    /// tracer the service installed sees it, and its context reaches the
    /// transport's headers) and, when a `traceExporter` is configured, exports
    /// a Fiber `Span` for it once it is done.
    func traced(_ request: FiberRequest, _ body: () async throws -> FiberResponse) async throws -> FiberResponse {
        var fiberSpan = configuration.traceExporter.map { _ in Span(name: "\(request.httpMethod) \(request.url.path)", traceID: request.traceID) }
        do {
            let response = try await withSpan(request.httpMethod.rawValue, ofKind: .client) { span in
                let recording = span.isRecording
                if recording {
                    span.attributes["http.request.method"] = request.httpMethod.rawValue
                    span.attributes["url.full"] = request.location.text
                    span.attributes["fiber.trace_id"] = request.traceID
                }
                let response = try await body()
                if recording { span.attributes["http.response.status_code"] = response.statusCode }
                return response
            }
            fiberSpan?.attributes["http.status_code"] = String(response.statusCode)
            await export(&fiberSpan)
            return response
        } catch {
            fiberSpan?.attributes["error"] = "\(error)"
            await export(&fiberSpan)
            throw error
        }
    }

    private func export(_ span: inout Span?) async {
        guard let exporter = configuration.traceExporter, var finished = span else { return }
        await exporter.export([finished.finish()])
    }
}
