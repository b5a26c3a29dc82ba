import Foundation

/// An endpoint as a value with its request and response types: path, method,
/// query and form items, an `Encodable` body, headers, and what the request
/// overrides of its client (retries, interceptors, cache, encoder, decoder, timeout).
///
/// ```swift
/// let create = NetworkRequest<CreateUser, User>(path: "/users", method: .post,
///                                                 body: CreateUser(name: "Ada"))
/// let user = try await fiber.run(create).value
/// ```
public struct NetworkRequest<RequestModel: Encodable & Sendable, ResponseModel: Decodable & Sendable>: Endpoint, Sendable {
    public typealias Response = ResponseModel

    /// The path, appended to the client's base URL.
    public let path: String
    /// The method.
    public let method: HTTPMethod
    /// Query items, in order.
    public let queryItems: [URLQueryItem]
    /// Fields sent as a form body, when given (taken over `body`).
    public let formItems: [URLFormItem]?
    /// The value sent as JSON, when given.
    public let requestBody: RequestModel?
    /// Header fields added to the client's.
    public let headers: [String: String]
    /// How the request is retried, when it says.
    public let retryStrategy: RetryStrategy?
    /// Interceptors that run instead of the client's, when given.
    public let interceptors: [any Interceptor]?
    /// Whether the request reads and writes the cache, when it says.
    public let cachePolicy: CachePolicy?
    /// The encoder of the body, when not the client's.
    public let encoder: JSONEncoder?
    /// The decoder of the response, when not the client's.
    public let decoder: JSONDecoder?
    /// Seconds the request may take, when not the client's timeout.
    public let timeout: TimeInterval?

    /// A request from its parts; everything but the path is optional.
    public init(path: String, method: HTTPMethod = .get, queryItems: [URLQueryItem] = [], formItems: [URLFormItem]? = nil,
                body: RequestModel? = nil, additionalHeaders: [String: String] = [:], retryStrategy: RetryStrategy? = nil,
                interceptors: [any Interceptor]? = nil, cachePolicy: CachePolicy? = nil, encoder: JSONEncoder? = nil,
                decoder: JSONDecoder? = nil, timeout: TimeInterval? = nil) {
        self.path = path
        self.method = method
        self.queryItems = queryItems
        self.formItems = formItems
        self.requestBody = body
        self.headers = additionalHeaders
        self.retryStrategy = retryStrategy
        self.interceptors = interceptors
        self.cachePolicy = cachePolicy
        self.encoder = encoder
        self.decoder = decoder
        self.timeout = timeout
    }

    /// `requestBody`, unless the request has none (or its type is `VoidRequest`).
    public var encodableBody: (any Encodable & Sendable)? {
        requestBody is VoidRequest ? nil : requestBody
    }
}

/// The request type of a request without a body.
public struct VoidRequest: Encodable, Sendable {
    /// The empty value.
    public init() {}
}

extension Fiber {
    /// Sends `request` and returns its decoded value with the response's metadata.
    ///
    /// - Throws: `FiberError`: `.httpError` for a status the client does not accept
    ///   (2xx without a `validateStatus` rule), `.decodingError` for a body that does
    ///   not decode (an empty one: `isEmptyResponseBody`), and the call's own failures.
    public func run<RequestModel, ResponseModel>(_ request: NetworkRequest<RequestModel, ResponseModel>) async throws(FiberError)
        -> NetworkResponse<ResponseModel> {
        let response = await response(for: request)
        if let error = response.error { throw error }
        return response
    }
}
