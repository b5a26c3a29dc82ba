import Dependencies
import Fiber
import Foundation

extension FiberHTTPClient {
    /// A client that forwards every endpoint to `fiber`: its base URL, interceptors,
    /// timeouts and transport apply. A body given to `post`, `put` or `patch` is sent
    /// as is, with the `Content-Type` of `headers` (none when `headers` has none).
    public static func live(_ fiber: Fiber) -> FiberHTTPClient {
        FiberHTTPClient(
            get: { path, query, headers in try await fiber.get(path, query: query, headers: headers) },
            post: { path, body, headers in try await fiber.send(request(fiber, .post, path, body, headers)) },
            put: { path, body, headers in try await fiber.send(request(fiber, .put, path, body, headers)) },
            patch: { path, body, headers in try await fiber.send(request(fiber, .patch, path, body, headers)) },
            delete: { path, query, headers in try await fiber.delete(path, query: query, headers: headers) },
            send: { request in try await fiber.send(request) }
        )
    }

    /// A client over a new `Fiber` for `baseURL`, configured by `configure`. The
    /// client's `defaults` start from the current `@Dependency(\.fiberDefaults)`,
    /// so a test that overrides them sees them here too.
    public static func live(_ baseURL: String, configure: (inout Fiber.Configuration) -> Void = { _ in }) -> FiberHTTPClient {
        live(Fiber.withDependencyDefaults(baseURL, configure: configure))
    }

    private static func request(_ fiber: Fiber, _ method: HTTPMethod, _ path: String, _ body: Data?,
                                _ headers: Headers) -> FiberRequest {
        let request = fiber.request(method, path, headers: headers)
        guard let body else { return request }
        return request.body(body, contentType: nil)
    }
}

extension Fiber {
    /// A client for `baseURL` whose `defaults` are the current `\.fiberDefaults`, then `configure`d.
    static func withDependencyDefaults(_ baseURL: String, configure: (inout Configuration) -> Void) -> Fiber {
        @Dependency(\.fiberDefaults) var defaults
        return Fiber(baseURL) {
            $0.defaults = defaults
            configure(&$0)
        }
    }
}
