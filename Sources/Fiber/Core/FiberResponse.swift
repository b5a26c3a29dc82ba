import FiberRuntime
import Foundation

/// A response with its whole body, the request that produced it, how long the
/// exchange took and the trace it belongs to.
public struct FiberResponse: Sendable {
    /// The body (empty for a streamed response until collected).
    public var data: Data { exchange.data }
    /// The status code.
    public var statusCode: Int { exchange.statusCode }
    /// The header fields as received (case-insensitive lookup: `header(_:)`).
    public var headers: HTTPHeaders { exchange.headers }
    /// The request, as the transport sent it (after every interceptor).
    public var request: FiberRequest { exchange.request }
    /// How long the transport took for the exchange, in seconds.
    public var duration: TimeInterval { exchange.duration }
    /// The trace ID of the request (see `TraceContext`).
    public var traceID: String { exchange.traceID }

    /// The parts that never change, shared: a response is passed up through every
    /// step of the pipeline, and a reference is moved where the parts were copied.
    private let exchange: ResponseExchange

    /// How `decode()` decodes (the client's decoder).
    var decoder: JSONDecoder?
    /// Which statuses `validateStatus()` accepts (the client's rule), else 2xx.
    var statusRule: (@Sendable (Int) -> Bool)?
    /// The body still to be read, for responses of `Fiber.stream`.
    var stream: FiberBodyStream?
    /// The HTTP version the response came over: nil for a response made by an
    /// interceptor, a cache or a transport that does not say.
    public var httpVersion: HTTPVersion?
    /// The trailer fields that followed the body (a chunked HTTP/1.1 body's, an
    /// HTTP/2 stream's last HEADERS), without those a trailer may not carry;
    /// nil when there were none. Nil for a streamed response until its body is
    /// read: `FiberStreamingResponse.trailers()` has them then.
    public var trailers: HTTPHeaders?

    /// A response from its parts; interceptors use it to answer without the
    /// network or to replace a response.
    public init(
        data: Data, statusCode: Int, headers: HTTPHeaders = [:], request: FiberRequest,
        duration: TimeInterval = 0, traceID: String = TraceContext.traceID
    ) {
        exchange = ResponseExchange(data: data, statusCode: statusCode, headers: headers, request: request,
                                    duration: duration, traceID: traceID)
    }

    /// An empty `200` response to an empty `GET` request, for tests and placeholders.
    public static var empty: FiberResponse {
        FiberResponse(data: Data(), statusCode: 200, request: FiberRequest(url: "http://localhost/"))
    }

    /// True for 200–299.
    public var isSuccess: Bool { (200...299).contains(statusCode) }
    /// True for 400–499.
    public var isClientError: Bool { (400...499).contains(statusCode) }
    /// True for 500–599.
    public var isServerError: Bool { (500...599).contains(statusCode) }

    /// The body as UTF-8 text (invalid sequences replaced).
    public var text: String { String(decoding: data, as: UTF8.self) }

    /// The first value of the header `name`, in any case.
    public func header(_ name: String) -> String? { headers.first(name: name) }

    /// True when the response's body is a stream still to be read (from `Fiber.stream`).
    public var isStreamed: Bool { stream != nil }

    /// The body decoded from JSON as `T`, with the client's decoder unless one is given.
    ///
    /// - Throws: `FiberError.decodingError` with the decoder's error and the body.
    public func decode<T: Decodable>(_ type: T.Type = T.self, decoder: JSONDecoder? = nil) throws(FiberError) -> T {
        do {
            return try (decoder ?? self.decoder ?? JSONDecoder()).decode(T.self, from: data)
        } catch {
            throw .decodingError(underlying: error, data: data)
        }
    }

    /// The response itself if its status is accepted: the client's
    /// `validateStatus` rule when it has one, else 200–299.
    ///
    /// - Throws: `FiberError.httpError` with the status, body and response.
    @discardableResult
    public func validateStatus() throws(FiberError) -> FiberResponse {
        guard statusRule?(statusCode) ?? isSuccess else {
            throw .httpError(statusCode: statusCode, data: data, response: self)
        }
        return self
    }

    /// The response itself after `check` accepted it.
    ///
    /// - Throws: whatever `check` throws.
    @discardableResult
    public func validate(_ check: (FiberResponse) throws -> Void) rethrows -> FiberResponse {
        try check(self)
        return self
    }

    /// A copy with another body (headers, status, request and trace kept), for
    /// interceptors that transform bodies.
    public func replacingData(_ data: Data) -> FiberResponse {
        var copy = FiberResponse(data: data, statusCode: statusCode, headers: headers, request: request,
                                 duration: duration, traceID: traceID)
        copy.decoder = decoder
        copy.statusRule = statusRule
        copy.trailers = trailers
        return copy
    }
}

/// What a response received: its immutable parts.
private final class ResponseExchange: Sendable {
    let data: Data
    let statusCode: Int
    let headers: HTTPHeaders
    let request: FiberRequest
    let duration: TimeInterval
    let traceID: String

    init(data: Data, statusCode: Int, headers: HTTPHeaders, request: FiberRequest, duration: TimeInterval,
         traceID: String) {
        self.data = data
        self.statusCode = statusCode
        self.headers = headers
        self.request = request
        self.duration = duration
        self.traceID = traceID
    }
}

extension FiberResponse: CustomReflectable {
    /// The response's parts, for `print`, `dump` and test failures: its fields sit behind
    /// one shared reference, which the default reflection would show instead.
    public var customMirror: Mirror {
        Mirror(self, children: ["data": data, "statusCode": statusCode, "headers": headers, "request": request,
                                "duration": duration, "traceID": traceID, "isStreamed": isStreamed],
               displayStyle: .struct)
    }
}
