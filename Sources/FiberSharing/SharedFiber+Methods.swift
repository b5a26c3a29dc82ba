import Fiber
import Foundation

extension SharedFiber {
    /// Sends `request` with the current client. - Throws: as `Fiber.send(_:)`.
    @discardableResult
    public func send(_ request: FiberRequest) async throws -> FiberResponse {
        try await client.send(request)
    }

    /// Sends a `GET` (uncached; see `getCached`). - Throws: as `Fiber.send(_:)`.
    @discardableResult
    public func get(_ path: String, query: [String: String] = [:], headers: [String: String] = [:]) async throws
        -> FiberResponse {
        try await client.get(path, query: query, headers: headers)
    }

    /// Sends a `POST` with `body` as JSON; a success invalidates the cached GETs of `path` (RFC 9111 §4.4).
    /// - Throws: as `Fiber.send(_:)`; `.encodingError` if `body` does not encode.
    @discardableResult
    public func post<Body: Encodable>(_ path: String, body: Body, query: [String: String] = [:],
                                      headers: [String: String] = [:]) async throws -> FiberResponse {
        await invalidating(path, try await client.post(path, body: body, query: query, headers: headers))
    }

    /// Sends a `POST` without a body; a success invalidates the cached GETs of `path`. - Throws: as `Fiber.send(_:)`.
    @discardableResult
    public func post(_ path: String, query: [String: String] = [:], headers: [String: String] = [:]) async throws
        -> FiberResponse {
        await invalidating(path, try await client.post(path, query: query, headers: headers))
    }

    /// Sends a `PUT` with `body` as JSON; a success invalidates the cached GETs of `path`.
    /// - Throws: as `Fiber.send(_:)`; `.encodingError` if `body` does not encode.
    @discardableResult
    public func put<Body: Encodable>(_ path: String, body: Body, query: [String: String] = [:],
                                     headers: [String: String] = [:]) async throws -> FiberResponse {
        await invalidating(path, try await client.put(path, body: body, query: query, headers: headers))
    }

    /// Sends a `PATCH` with `body` as JSON; a success invalidates the cached GETs of `path`.
    /// - Throws: as `Fiber.send(_:)`; `.encodingError` if `body` does not encode.
    @discardableResult
    public func patch<Body: Encodable>(_ path: String, body: Body, query: [String: String] = [:],
                                       headers: [String: String] = [:]) async throws -> FiberResponse {
        await invalidating(path, try await client.patch(path, body: body, query: query, headers: headers))
    }

    /// Sends a `DELETE`; a success invalidates the cached GETs of `path`. - Throws: as `Fiber.send(_:)`.
    @discardableResult
    public func delete(_ path: String, query: [String: String] = [:], headers: [String: String] = [:]) async throws
        -> FiberResponse {
        await invalidating(path, try await client.delete(path, query: query, headers: headers))
    }

    /// After an unsafe method succeeded (2xx, 3xx), the stored GETs of its path are stale by definition.
    private func invalidating(_ path: String, _ response: FiberResponse) async -> FiberResponse {
        if (200..<400).contains(response.statusCode) { await invalidateCache(for: path) }
        return response
    }
}
