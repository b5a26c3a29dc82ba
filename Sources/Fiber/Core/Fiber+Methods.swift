import Foundation

extension Fiber {
    /// A request for `path` (appended to `baseURL`; an absolute `http(s)` URL is used as is)
    /// with `query` (in key order) and `headers`.
    public func request(_ method: HTTPMethod, _ path: String, query: [String: String] = [:],
                        headers: [String: String] = [:]) -> FiberRequest {
        var request = FiberRequest(url: resolve(path)).method(method).headers(headers)
        if !query.isEmpty {
            request = request.query(query.sorted { $0.key < $1.key }.map { URLQueryItem(name: $0.key, value: $0.value) })
        }
        return request
    }

    private func resolve(_ path: String) -> String {
        if path.hasPrefix("http://") || path.hasPrefix("https://") { return path }
        let base = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        if path.isEmpty { return base }
        return path.hasPrefix("/") ? base + path : base + "/" + path
    }

    /// Sends a `GET`. - Throws: as `send(_:)`.
    @discardableResult
    public func get(_ path: String, query: [String: String] = [:], headers: [String: String] = [:]) async throws -> FiberResponse {
        try await send(request(.get, path, query: query, headers: headers))
    }

    /// Sends a `DELETE`. - Throws: as `send(_:)`.
    @discardableResult
    public func delete(_ path: String, query: [String: String] = [:], headers: [String: String] = [:]) async throws -> FiberResponse {
        try await send(request(.delete, path, query: query, headers: headers))
    }

    /// Sends a `POST` without a body. - Throws: as `send(_:)`.
    @discardableResult
    public func post(_ path: String, query: [String: String] = [:], headers: [String: String] = [:]) async throws -> FiberResponse {
        try await send(request(.post, path, query: query, headers: headers))
    }

    /// Sends a `POST` with `body` encoded as JSON by the client's encoder.
    /// - Throws: as `send(_:)`; `.encodingError` if `body` does not encode.
    @discardableResult
    public func post<Body: Encodable>(_ path: String, body: Body, query: [String: String] = [:],
                                      headers: [String: String] = [:]) async throws -> FiberResponse {
        try await sendJSON(.post, path, body, query, headers)
    }

    /// Sends a `POST` with `body` as raw bytes. - Throws: as `send(_:)`.
    @discardableResult
    public func post(_ path: String, body: Data, contentType: String? = nil, query: [String: String] = [:],
                     headers: [String: String] = [:]) async throws -> FiberResponse {
        try await send(request(.post, path, query: query, headers: headers).body(body, contentType: contentType))
    }

    /// Sends a `PUT` with `body` encoded as JSON.
    /// - Throws: as `send(_:)`; `.encodingError` if `body` does not encode.
    @discardableResult
    public func put<Body: Encodable>(_ path: String, body: Body, query: [String: String] = [:],
                                     headers: [String: String] = [:]) async throws -> FiberResponse {
        try await sendJSON(.put, path, body, query, headers)
    }

    /// Sends a `PATCH` with `body` encoded as JSON.
    /// - Throws: as `send(_:)`; `.encodingError` if `body` does not encode.
    @discardableResult
    public func patch<Body: Encodable>(_ path: String, body: Body, query: [String: String] = [:],
                                       headers: [String: String] = [:]) async throws -> FiberResponse {
        try await sendJSON(.patch, path, body, query, headers)
    }

    private func sendJSON<Body: Encodable>(_ method: HTTPMethod, _ path: String, _ body: Body, _ query: [String: String],
                                           _ headers: [String: String]) async throws -> FiberResponse {
        try await send(jsonRequest(method, path, body, query, headers))
    }

    /// A request with `body` encoded as JSON by the client's encoder.
    func jsonRequest<Body: Encodable>(_ method: HTTPMethod, _ path: String, _ body: Body, _ query: [String: String],
                                      _ headers: [String: String]) -> FiberRequest {
        request(method, path, query: query, headers: headers)
            .jsonBody(body, encoder: configuration.encoder, defaults: configuration.defaults)
    }
}
