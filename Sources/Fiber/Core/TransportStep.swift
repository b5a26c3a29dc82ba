import FiberRuntime
import Foundation
import Instrumentation

/// The last step of every chain: turns a `FiberRequest` into a
/// `TransportRequest` (with trace headers, its deadline and its loop), calls
/// the transport, and maps what it throws to `FiberError`, once.
struct TransportStep: Sendable {
    let transport: any FiberTransport
    let configuration: Fiber.Configuration

    nonisolated(nonsending) func send(_ request: FiberRequest) async throws -> FiberResponse {
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

    nonisolated(nonsending) func stream(_ request: FiberRequest) async throws -> FiberResponse {
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
        if configuration.propagatesTraceContext { addTraceHeaders(to: &request.headers, traceID: request.traceID) }
        var outgoing = TransportRequest(location: request.location, httpMethod: request.httpMethod.rawValue,
                                        headers: request.headers, httpBody: request.body,
                                        deadlineReading: request.deadlineReading, eventLoop: request.eventLoop)
        if let stream = request.bodyStream { outgoing.httpBodyStream = stream }
        if let reporter = request.uploadProgress { outgoing.uploadProgress = { reporter.record($0, of: $1) } }
        return (request, outgoing)
    }

    /// Lets the installed swift-distributed-tracing instrument inject its
    /// headers, then adds Fiber's own `traceparent` if none is there yet.
    /// (In place: the request's one copy in `prepare` is the only one.)
    private func addTraceHeaders(to headers: inout HTTPHeaders, traceID: String) {
        if let context = ServiceContext.current {
            InstrumentationSystem.instrument.inject(context, into: &headers, using: HTTPHeadersInjector())
        }
        if !headers.contains(name: TraceParent.headerName) {
            headers.append(name: TraceParent.headerName, value: TraceParent.valueWithNewSpan(traceID: traceID))
        }
    }

    private func response(data: Data, head: TransportResponse, request: FiberRequest, since start: MonotonicTime)
        -> FiberResponse {
        var response = FiberResponse(data: data, statusCode: head.statusCode, headers: head.headers, request: request,
                                     duration: (MonotonicTime.now() - start).seconds, traceID: request.traceID)
        response.decoder = request.overrides?.decoder ?? configuration.decoder
        response.statusRule = configuration.validateStatus
        return response
    }
}

/// Writes swift-distributed-tracing's propagation fields into Fiber's headers.
struct HTTPHeadersInjector: Injector {
    func inject(_ value: String, forKey key: String, into headers: inout HTTPHeaders) {
        headers.replaceOrAdd(name: key, value: value)
    }
}
