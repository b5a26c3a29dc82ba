import Fiber
import FiberRuntime
import Foundation

/// A canned answer for `MockTransport`, built like everything else in Fiber:
///
/// ```swift
/// let stub = StubResponse.ok()
///     .header("X-Request-Id", "abc123")
///     .body(#"{"users": []}"#)
/// ```
public struct StubResponse: Sendable {
    /// The status code.
    public var statusCode: Int
    /// The header fields.
    public var headers: HTTPHeaders
    /// The body.
    public var body: Data
    /// When set, the transport throws this instead of answering.
    public var error: (any Error)?

    /// A response with `statusCode`, `headers` and `body`.
    public init(statusCode: Int, headers: HTTPHeaders = [:], body: Data = Data()) {
        self.statusCode = statusCode
        self.headers = headers
        self.body = body
    }

    /// The transport fails with `error` (a `TransportError`, `URLError`, `FiberError`, …).
    public static func failure(_ error: any Error) -> StubResponse {
        var stub = StubResponse(statusCode: 0)
        stub.error = error
        return stub
    }

    /// A response with any status and a UTF-8 body.
    public static func status(_ code: Int, body: String = "") -> StubResponse {
        StubResponse(statusCode: code, body: Data(body.utf8))
    }

    /// 200, with a UTF-8 body.
    public static func ok(body: String = "") -> StubResponse { status(200, body: body) }
    /// 201, with a UTF-8 body.
    public static func created(body: String = "") -> StubResponse { status(201, body: body) }
    /// 204.
    public static func noContent() -> StubResponse { status(204) }
    /// 400, with a UTF-8 body.
    public static func badRequest(body: String = "") -> StubResponse { status(400, body: body) }
    /// 401, with a UTF-8 body.
    public static func unauthorized(body: String = "") -> StubResponse { status(401, body: body) }
    /// 404, with a UTF-8 body.
    public static func notFound(body: String = "") -> StubResponse { status(404, body: body) }
    /// 500, with a UTF-8 body.
    public static func serverError(body: String = "") -> StubResponse { status(500, body: body) }

    /// The same stub with the header `name` set to `value`.
    public func header(_ name: String, _ value: String) -> StubResponse {
        var copy = self
        copy.headers.replaceOrAdd(name: name, value: value)
        return copy
    }

    /// The same stub with a UTF-8 body.
    public func body(_ text: String) -> StubResponse { body(Data(text.utf8)) }

    /// The same stub with `data` as its body.
    public func body(_ data: Data) -> StubResponse {
        var copy = self
        copy.body = data
        return copy
    }

    /// The same stub with `value` as its JSON body and `Content-Type: application/json`.
    /// A value that does not encode leaves the body empty and records the error in `error`.
    public func jsonBody<T: Encodable>(_ value: T, encoder: JSONEncoder = JSONEncoder()) -> StubResponse {
        do {
            return body(try encoder.encode(value)).header("Content-Type", "application/json")
        } catch {
            var copy = self
            copy.error = FiberError.encodingError(underlying: error)
            return copy
        }
    }

    /// The same stub with another status.
    public func status(_ code: Int) -> StubResponse {
        var copy = self
        copy.statusCode = code
        return copy
    }
}
