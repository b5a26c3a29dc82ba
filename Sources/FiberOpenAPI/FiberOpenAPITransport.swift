import Fiber
import Foundation
import HTTPTypes
import OpenAPIRuntime

/// A `ClientTransport` for clients made by swift-openapi-generator that sends
/// every operation through a `Fiber` client, so its interceptors (auth, retry,
/// logging, cache, metrics, …), default headers, timeout and transport apply to
/// generated calls as to any other.
///
/// ```swift
/// let fiber = Fiber("https://api.example.com") { $0.interceptors = [auth, retry, logging] }
/// let client = Client(serverURL: try Servers.Server1.url(), transport: FiberOpenAPITransport(fiber))
/// let pet = try await client.getPet(path: .init(petId: 7)).ok.body.json
/// ```
///
/// - The URL is the generated client's server URL (a path prefix kept) followed
///   by the operation's path and query; the client's own `baseURL` is not used.
/// - A request body is streamed as it is read, never collected: with
///   `Content-Length` when its length is known, else chunked. A body that can be
///   iterated many times (`.multiple`, such as every JSON body) can be retried; one
///   iterated once (`.single`) is not (see `HTTPRequestBody.isReplayable`).
/// - The response returns once its head is in, its body streaming from the socket
///   (`Fiber.stream(_:)`) with backpressure, to iterate once; no body for `HEAD`,
///   204 and 304.
/// - Every status is returned to the generated client, which turns one the
///   document does not list into `.undocumented`: leave the Fiber client's
///   `validateStatus` unset, or a rejected status throws `FiberError.httpError`.
/// - The interceptors see the operation's ID as the request's metadata
///   `openapi.operationID` (`FiberOpenAPITransport.operationIDKey`).
///
/// Errors reach the generated client's caller as `ClientError` whose
/// `underlyingError` is what the Fiber client threw: a `FiberError` for every
/// failure of the network (`.networkError`, `.timeout`, `.cancelled` when the
/// calling task is cancelled, `.invalidURL`), and your own interceptors' errors as
/// they threw them.
public struct FiberOpenAPITransport: ClientTransport {
    /// The metadata key under which interceptors find the operation's ID.
    public static let operationIDKey = "openapi.operationID"

    /// The client every operation is sent with.
    public let fiber: Fiber

    /// A transport that sends every operation with `fiber`.
    public init(_ fiber: Fiber) {
        self.fiber = fiber
    }

    /// Sends `request` (its path appended to `baseURL`) with `body` through the Fiber
    /// client and returns the response head with its body still streaming.
    ///
    /// - Throws: `FiberError` as `Fiber.stream(_:)` throws it, and the errors of the
    ///   client's own interceptors as they were thrown; `FiberError.networkError` with an
    ///   `HTTPTypesConversionError` for a response head swift-http-types cannot hold
    ///   (a status outside 0...999, a header field RFC 9110 does not allow).
    public func send(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL,
                     operationID: String) async throws -> (HTTPResponse, HTTPBody?) {
        let streamed = try await fiber.stream(Self.fiberRequest(request, body: body, baseURL: baseURL)
            .meta(Self.operationIDKey, operationID))
        let head: HTTPResponse
        do {
            head = try HTTPResponse(streamed)
        } catch {
            throw FiberError.networkError(underlying: error)
        }
        guard Self.hasBody(request.method, head.status.code) else { return (head, nil) }
        return (head, HTTPBody(streaming: streamed.body, length: Self.length(of: streamed)))
    }

    /// The Fiber request for a generated client's request: its method and fields in
    /// order, the URL `baseURL` followed by its path (and query), and its body streamed.
    static func fiberRequest(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL) -> FiberRequest {
        var base = baseURL.absoluteString
        if base.hasSuffix("/") { base.removeLast() }
        // Text, not `URL(string:relativeTo:)`: a path resolved against the base would drop its prefix.
        let fiberRequest = FiberRequest(url: base + (request.path ?? ""))
            .method(HTTPMethod(rawValue: request.method.rawValue))
            .headers(HTTPHeaders(request.headerFields))
        guard let body else { return fiberRequest }
        return fiberRequest.body(HTTPRequestBody(streaming: body))
    }

    /// Whether a response to `method` with `status` has a body to hand on (RFC 9110 §6.4.1).
    static func hasBody(_ method: HTTPRequest.Method, _ status: Int) -> Bool {
        method != .head && status != 204 && status != 304 && !(100...199).contains(status)
    }

    /// The body's length as `Content-Length` says, unless the body was decoded
    /// (`Content-Encoding`), which makes that the length of what was sent, not of what is read.
    static func length(of response: FiberStreamingResponse) -> HTTPBody.Length {
        guard response.header("Content-Encoding") == nil, let text = response.header("Content-Length"),
              let length = Int64(text), length >= 0 else { return .unknown }
        return .known(length)
    }
}
