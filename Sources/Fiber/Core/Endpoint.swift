import Foundation

/// One operation of an API as a value: where it goes, how, and what it returns.
///
/// ```swift
/// struct GetUser: Endpoint {
///     typealias Response = User
///     let id: String
///     var path: String { "/users/\(id)" }
///     var method: HTTPMethod { .get }
/// }
/// let user = try await fiber.request(GetUser(id: "123"))
/// ```
public protocol Endpoint {
    /// What a successful response decodes to.
    associatedtype Response: Decodable
    /// The path, appended to the client's base URL.
    var path: String { get }
    /// The method (default `GET`).
    var method: HTTPMethod { get }
    /// Query items, in order (default none).
    var queryItems: [URLQueryItem] { get }
    /// Header fields (default none).
    var headers: [String: String] { get }
    /// The body (default none); sent as JSON unless `headers` set a `Content-Type`.
    var body: Data? { get }
    /// Seconds the request may take (default: the client's timeout).
    var timeout: TimeInterval? { get }
}

extension Endpoint {
    /// `GET`.
    public var method: HTTPMethod { .get }
    /// None.
    public var queryItems: [URLQueryItem] { [] }
    /// None.
    public var headers: [String: String] { [:] }
    /// None.
    public var body: Data? { nil }
    /// None: the client's timeout.
    public var timeout: TimeInterval? { nil }
}

extension Fiber {
    /// Sends `endpoint`, checks the status and decodes the body as its `Response`.
    ///
    /// - Throws: as `send(_:)`; `FiberError.httpError` when the status is not
    ///   accepted (2xx, or the client's `validateStatus`); `.decodingError`
    ///   when the body is not a `Response`.
    public func request<E: Endpoint>(_ endpoint: E) async throws -> E.Response {
        try await send(request(for: endpoint)).validateStatus().decode()
    }

    /// The request `endpoint` describes: its method, path, query, headers, body and timeout.
    public func request<E: Endpoint>(for endpoint: E) -> FiberRequest {
        var request = request(endpoint.method, endpoint.path, headers: endpoint.headers).query(endpoint.queryItems)
        if let body = endpoint.body {
            let type = request.headers.contains(name: "Content-Type") ? nil : configuration.defaults.jsonContentType
            request = request.body(body, contentType: type)
        }
        if let timeout = endpoint.timeout { request = request.timeout(timeout) }
        return request
    }
}
