import Instrumentation
import Tracing

extension TransportStep {
    /// Sends one attempt of a request in a client span of the installed tracer,
    /// named for the method, a child of the request's span (`Fiber.inRequestSpan`):
    /// a retry is a second attempt and a second span, whose
    /// `http.request.resend_count` says how many went before it, and each redirect
    /// the attempt follows is a client span under it (`RedirectSpans`). The trace
    /// context sent with the attempt is this span's, so the server's span is its child.
    nonisolated(nonsending) func inAttemptSpan(_ request: FiberRequest, streaming: Bool) async throws -> FiberResponse {
        let attributes = HTTPClientAttributes(method: request.httpMethod.rawValue, location: request.location)
        let resends = RequestAttempts.current?.next() ?? 0
        let span = startSpan(attributes.method, ofKind: .client)
        if span.isRecording {
            span.attributes.record(attributes)
            if resends > 0 { span.attributes["http.request.resend_count"] = resends }
        }
        defer { span.end() }
        do {
            let response = try await ServiceContext.$current.withValue(span.context) {
                guard span.isRecording else {
                    return streaming ? try await streamPrepared(request) : try await sendPrepared(request)
                }
                return try await RedirectSpans.$observer.withValue(RedirectSpans.recording(under: span.context)) {
                    streaming ? try await streamPrepared(request) : try await sendPrepared(request)
                }
            }
            span.record(response.statusCode)
            return response
        } catch {
            span.record(error)
            throw error
        }
    }
}
