import FiberRuntime
import Foundation

/// The last step of every chain: turns a `FiberRequest` into a
/// `TransportRequest` (with trace headers, its deadline and its loop), calls
/// the transport, and maps what it throws to `FiberError`, once. With an
/// instrument installed, each call is one attempt, in a span of its own
/// (`TransportStep+Tracing`).
struct TransportStep: Sendable {
    let transport: any FiberTransport
    let configuration: Fiber.Configuration
    /// Whether a swift-distributed-tracing instrument was installed when the client was made.
    let instrumented: Bool

    nonisolated(nonsending) func send(_ request: FiberRequest) async throws -> FiberResponse {
        if instrumented { return try await inAttemptSpan(request, streaming: false) }
        return try await sendPrepared(request)
    }

    nonisolated(nonsending) func stream(_ request: FiberRequest) async throws -> FiberResponse {
        if instrumented { return try await inAttemptSpan(request, streaming: true) }
        return try await streamPrepared(request)
    }

    nonisolated(nonsending) func sendPrepared(_ request: FiberRequest) async throws -> FiberResponse {
        let (sent, outgoing) = try prepare(request)
        let start = MonotonicTime.now()
        do {
            let (data, head) = try await transport.send(outgoing)
            sent.uploadProgress?.finish()
            return response(data: data, head: head, request: sent, since: start)
        } catch {
            throw FiberError(transportFailure: error)
        }
    }

    nonisolated(nonsending) func streamPrepared(_ request: FiberRequest) async throws -> FiberResponse {
        let (sent, outgoing) = try prepare(request)
        let start = MonotonicTime.now()
        do {
            let (body, head) = try await transport.stream(outgoing)
            sent.uploadProgress?.finish()
            var response = response(data: Data(), head: head, request: sent, since: start)
            response.stream = body
            return response
        } catch {
            throw FiberError(transportFailure: error)
        }
    }

    private func prepare(_ request: FiberRequest) throws(FiberError) -> (FiberRequest, TransportRequest) {
        if let error = request.buildError { throw error }
        if let deadline = request.deadlineReading, deadline <= MonotonicTime.now() { throw .timeout }
        var request = request
        // A request an interceptor made anew carries no trace ID: the task's is bound then.
        if request.traceID.isEmpty { request.traceID = TraceContext.traceID }
        if configuration.propagatesTraceContext {
            TracePropagation.inject(into: &request.headers, traceID: request.traceID, instrumented: instrumented)
        }
        var outgoing = TransportRequest(location: request.location, httpMethod: request.httpMethod.rawValue,
                                        headers: request.headers, httpBody: request.body,
                                        deadlineReading: request.deadlineReading, eventLoop: request.eventLoop)
        if let stream = request.bodyStream { outgoing.httpBodyStream = stream }
        outgoing.cookies = configuration.cookieJar
        outgoing.proxy = request.overrides?.proxy
        if let reporter = request.uploadProgress { outgoing.uploadProgress = { reporter.record($0, of: $1) } }
        return (request, outgoing)
    }

    private func response(data: Data, head: TransportResponse, request: FiberRequest, since start: MonotonicTime)
        -> FiberResponse {
        var response = FiberResponse(data: data, statusCode: head.statusCode, headers: head.headers, request: request,
                                     duration: (MonotonicTime.now() - start).seconds, traceID: request.traceID)
        response.decoder = request.overrides?.decoder ?? configuration.decoder
        response.statusRule = configuration.validateStatus
        response.httpVersion = head.httpVersion
        response.trailers = head.trailers
        return response
    }
}
