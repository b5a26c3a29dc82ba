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
    /// A value sent as the JSON body, with `encoder` or the client's (default none;
    /// taken over `body`).
    var encodableBody: (any Encodable & Sendable)? { get }
    /// Fields sent as an `application/x-www-form-urlencoded` body (default none; taken
    /// over `encodableBody` and `body`).
    var formItems: [URLFormItem]? { get }
    /// The encoder of `encodableBody` (default: the client's).
    var encoder: JSONEncoder? { get }
    /// The decoder of the response (default: the client's).
    var decoder: JSONDecoder? { get }
    /// How the request is retried (default: as the client's interceptors say).
    var retryStrategy: RetryStrategy? { get }
    /// Whether the request reads and writes the cache (default: the cache's rules).
    var cachePolicy: CachePolicy? { get }
    /// Interceptors that run instead of the client's (default: the client's).
    var interceptors: [any Interceptor]? { get }
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
    /// None.
    public var encodableBody: (any Encodable & Sendable)? { nil }
    /// None.
    public var formItems: [URLFormItem]? { nil }
    /// None: the client's.
    public var encoder: JSONEncoder? { nil }
    /// None: the client's.
    public var decoder: JSONDecoder? { nil }
    /// None: the client's interceptors decide.
    public var retryStrategy: RetryStrategy? { nil }
    /// None: the cache's rules.
    public var cachePolicy: CachePolicy? { nil }
    /// None: the client's.
    public var interceptors: [any Interceptor]? { nil }
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

    /// The request `endpoint` describes: its method, path, query, headers, body (form
    /// items, an encodable value or bytes), timeout, decoder and overrides.
    public func request<E: Endpoint>(for endpoint: E) -> FiberRequest {
        var request = request(endpoint.method, endpoint.path, headers: endpoint.headers).query(endpoint.queryItems)
        if let items = endpoint.formItems {
            request = request.formBody(items)
        } else if let value = endpoint.encodableBody {
            request = request.jsonBody(value, encoder: endpoint.encoder ?? configuration.encoder, defaults: configuration.defaults)
        } else if let body = endpoint.body {
            let type = request.headers.contains(name: "Content-Type") ? nil : configuration.defaults.jsonContentType
            request = request.body(body, contentType: type)
        }
        if let timeout = endpoint.timeout { request = request.timeout(timeout) }
        if let decoder = endpoint.decoder { request = request.decoder(decoder) }
        if let strategy = endpoint.retryStrategy { request = request.retry(strategy) }
        if let policy = endpoint.cachePolicy { request = request.cachePolicy(policy) }
        if let interceptors = endpoint.interceptors { request = request.interceptors(interceptors) }
        return request
    }
}
