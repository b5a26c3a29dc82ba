import FiberRuntime
import Foundation
import Logging

/// The default transport: the runtime's HTTP client (HTTP/1.1 and HTTP/2,
/// pools per event loop, redirects, decompression, deadlines).
///
/// Each request's pipeline runs with the event loop that will carry it as its
/// task-executor preference (`executorPreference()`), so interceptors, the
/// pool and the socket share one thread and the request costs no hop.
public struct HTTPTransport: FiberTransport {
    /// The client underneath.
    public let client: HTTPClient

    /// The transport every `Fiber` uses unless told otherwise: one client on `EventLoopGroup.shared`.
    public static let shared = HTTPTransport(eventLoopGroup: .shared)

    /// A transport with its own client on `eventLoopGroup`.
    public init(eventLoopGroup: EventLoopGroup = .shared, configuration: HTTPClient.Configuration = .init()) {
        self.client = HTTPClient(eventLoopGroup: eventLoopGroup, configuration: configuration)
    }

    /// - Throws: `HTTPClientError` (see `HTTPClient.execute`); Fiber maps it with `FiberError.init(transportFailure:)`.
    public func send(_ request: TransportRequest) async throws -> (Data, TransportResponse) {
        // Collected as `Data` by the connection: the body reaches the caller without a copy.
        let (response, body) = try await client.executeCollectingData(try clientRequest(request), options: options(request),
                                                                      on: request.eventLoop)
        return (body, head(response.status, response.headers, response.version, request, response.redirectCount, response.url,
                           trailers: response.trailers))
    }

    /// - Throws: as `send(_:)`, up to the head; the body throws what happens after.
    public func stream(_ request: TransportRequest) async throws -> (FiberBodyStream, TransportResponse) {
        let response = try await client.stream(try clientRequest(request), options: options(request), on: request.eventLoop)
        let body = response.body
        return (FiberBodyStream(body, trailers: { try await body.trailers() }),
                head(response.status, response.headers, response.version, request, response.redirectCount, response.url))
    }

    /// The loop that will carry the request: the caller's if it runs on one of the group's, else the next in turn
    /// (among the loops that have a share of the client's connections).
    public func executorPreference() -> (any TaskExecutor)? { client.nextLoop() }

    /// Closes the client's idle connections (the shared transport lives as long as the process).
    public func shutdown() async { await client.shutdown() }

    private func clientRequest(_ request: TransportRequest) throws -> HTTPClientRequest {
        guard let location = request.location else { throw FiberError.invalidURL("") }
        let body = request.httpBodyStream ?? request.httpBody.map(HTTPRequestBody.data)
        // A plain URL was parsed when the request was built; any other is read here, from its text.
        let target = try location.target ?? HTTPTarget(location.text)
        return HTTPClientRequest(target: target, method: request.httpMethod ?? "GET", headers: request.headers, body: body)
    }

    private func options(_ request: TransportRequest) -> HTTPClient.RequestOptions {
        var options = HTTPClient.RequestOptions()
        options.deadlineReading = request.deadlineReading
        options.uploadProgress = request.uploadProgress
        options.redirectObserver = RedirectSpans.observer
        options.cookies = request.cookies
        options.proxy = request.proxy
        return options
    }

    /// Without a redirect the request's URL answered: `answered` (the target written out) is parsed only after one.
    private func head(_ status: Int, _ headers: HTTPHeaders, _ version: HTTPVersion, _ request: TransportRequest, _ redirects: Int,
                      _ answered: @autoclosure () -> String, trailers: HTTPHeaders? = nil) -> TransportResponse {
        TransportResponse(statusCode: status, headers: headers,
                          location: redirects == 0 ? request.location : RequestURL(parsing: answered()), httpVersion: version,
                          trailers: trailers)
    }
}
