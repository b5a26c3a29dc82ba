import Foundation
import Tracing

extension Fiber {
    /// Runs one request inside a client span of swift-distributed-tracing (so a
    /// tracer the service installed sees it, and its context reaches the
    /// transport's headers) and, when a `traceExporter` is configured, exports
    /// a Fiber `Span` for it once it is done.
    func traced(_ request: FiberRequest, _ body: () async throws -> FiberResponse) async throws -> FiberResponse {
        var fiberSpan = configuration.traceExporter.map { _ in Span(name: "\(request.httpMethod) \(request.url.path)") }
        do {
            let response = try await withSpan(request.httpMethod.rawValue, ofKind: .client) { span in
                let recording = span.isRecording
                if recording {
                    span.attributes["http.request.method"] = request.httpMethod.rawValue
                    span.attributes["url.full"] = request.url.absoluteString
                    span.attributes["fiber.trace_id"] = TraceContext.traceID
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
