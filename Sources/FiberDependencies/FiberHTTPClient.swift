@_exported import Dependencies
@_exported import Fiber
import Foundation

/// An HTTP client as a struct of closures, for code that takes its dependencies
/// from swift-dependencies: `@Dependency(\.fiberHTTPClient) var httpClient`.
///
/// Each endpoint is a closure a test can replace on its own:
///
/// ```swift
/// withDependencies {
///     $0.fiberHTTPClient.get = { path, query, headers in .empty }
/// } operation: { … }
/// ```
///
/// `get` and `delete` take `(path, query, headers)`; `post`, `put` and `patch`
/// take `(path, body, headers)` with the body as bytes (see `post(_:json:headers:)`
/// for an `Encodable` one); `send` takes a whole `FiberRequest`. The live client
/// (`live(_:)`) forwards to a `Fiber`, so its interceptors, timeouts and errors
/// apply: each closure throws what `Fiber.send(_:)` throws.
public struct FiberHTTPClient: Sendable {
    /// Query items of a request, in key order on the wire.
    public typealias Query = [String: String]
    /// Header fields of a request.
    public typealias Headers = [String: String]

    /// Sends a `GET` for `path` with `query` and `headers`.
    public var get: @Sendable (_ path: String, _ query: Query, _ headers: Headers) async throws -> FiberResponse
    /// Sends a `POST` of `body` (none when nil) to `path` with `headers`.
    public var post: @Sendable (_ path: String, _ body: Data?, _ headers: Headers) async throws -> FiberResponse
    /// Sends a `PUT` of `body` to `path` with `headers`.
    public var put: @Sendable (_ path: String, _ body: Data?, _ headers: Headers) async throws -> FiberResponse
    /// Sends a `PATCH` of `body` to `path` with `headers`.
    public var patch: @Sendable (_ path: String, _ body: Data?, _ headers: Headers) async throws -> FiberResponse
    /// Sends a `DELETE` for `path` with `query` and `headers`.
    public var delete: @Sendable (_ path: String, _ query: Query, _ headers: Headers) async throws -> FiberResponse
    /// Sends a request built in full (method, URL, headers, body, per-request options).
    public var send: @Sendable (_ request: FiberRequest) async throws -> FiberResponse

    /// A client of the given closures.
    public init(
        get: @escaping @Sendable (_ path: String, _ query: Query, _ headers: Headers) async throws -> FiberResponse,
        post: @escaping @Sendable (_ path: String, _ body: Data?, _ headers: Headers) async throws -> FiberResponse,
        put: @escaping @Sendable (_ path: String, _ body: Data?, _ headers: Headers) async throws -> FiberResponse,
        patch: @escaping @Sendable (_ path: String, _ body: Data?, _ headers: Headers) async throws -> FiberResponse,
        delete: @escaping @Sendable (_ path: String, _ query: Query, _ headers: Headers) async throws -> FiberResponse,
        send: @escaping @Sendable (_ request: FiberRequest) async throws -> FiberResponse
    ) {
        self.get = get
        self.post = post
        self.put = put
        self.patch = patch
        self.delete = delete
        self.send = send
    }
}

extension FiberHTTPClient {
    /// Sends a `POST` of `body` encoded as JSON (with `Content-Type: application/json`
    /// unless `headers` set one) through the `post` closure, so an override of `post`
    /// sees it.
    /// - Throws: `FiberError.encodingError` when `body` does not encode; otherwise what `post` throws.
    public func post(_ path: String, json body: some Encodable, headers: Headers = [:],
                     encoder: JSONEncoder = JSONEncoder()) async throws -> FiberResponse {
        try await post(path, Self.encode(body, encoder), Self.withJSONType(headers))
    }

    /// Sends a `PUT` of `body` encoded as JSON through the `put` closure.
    /// - Throws: `FiberError.encodingError` when `body` does not encode; otherwise what `put` throws.
    public func put(_ path: String, json body: some Encodable, headers: Headers = [:],
                    encoder: JSONEncoder = JSONEncoder()) async throws -> FiberResponse {
        try await put(path, Self.encode(body, encoder), Self.withJSONType(headers))
    }

    /// Sends a `PATCH` of `body` encoded as JSON through the `patch` closure.
    /// - Throws: `FiberError.encodingError` when `body` does not encode; otherwise what `patch` throws.
    public func patch(_ path: String, json body: some Encodable, headers: Headers = [:],
                      encoder: JSONEncoder = JSONEncoder()) async throws -> FiberResponse {
        try await patch(path, Self.encode(body, encoder), Self.withJSONType(headers))
    }

    private static func encode(_ body: some Encodable, _ encoder: JSONEncoder) throws(FiberError) -> Data {
        do { return try encoder.encode(body) } catch { throw .encodingError(underlying: error) }
    }

    private static func withJSONType(_ headers: Headers) -> Headers {
        if headers.keys.contains(where: { $0.lowercased() == "content-type" }) { return headers }
        var headers = headers
        headers["Content-Type"] = FiberDefaults.shared.jsonContentType
        return headers
    }
}
