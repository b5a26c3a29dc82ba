import Dependencies
import Fiber
import Foundation
import IssueReporting

extension FiberHTTPClient: DependencyKey {
    /// Forwards to the current `@Dependency(\.fiber)`, read at each call, so setting
    /// `\.fiber` at startup (or in a `withDependencies` scope) sets this client too.
    public static var liveValue: FiberHTTPClient {
        FiberHTTPClient(
            get: { path, query, headers in try await current().get(path, query, headers) },
            post: { path, body, headers in try await current().post(path, body, headers) },
            put: { path, body, headers in try await current().put(path, body, headers) },
            patch: { path, body, headers in try await current().patch(path, body, headers) },
            delete: { path, query, headers in try await current().delete(path, query, headers) },
            send: { request in try await current().send(request) }
        )
    }

    /// Every endpoint reports a test failure naming itself and throws
    /// `FiberError.networkError(underlying: UnimplementedEndpoint)`: a test must
    /// override the endpoints its code uses.
    public static var testValue: FiberHTTPClient {
        FiberHTTPClient(
            get: { path, _, _ in try unimplemented("get", path) },
            post: { path, _, _ in try unimplemented("post", path) },
            put: { path, _, _ in try unimplemented("put", path) },
            patch: { path, _, _ in try unimplemented("patch", path) },
            delete: { path, _, _ in try unimplemented("delete", path) },
            send: { request in try unimplemented("send", request.url.absoluteString) }
        )
    }

    /// Every endpoint answers `200` with an empty body, for previews and demos.
    public static var previewValue: FiberHTTPClient {
        FiberHTTPClient(
            get: { _, _, _ in .empty }, post: { _, _, _ in .empty }, put: { _, _, _ in .empty },
            patch: { _, _, _ in .empty }, delete: { _, _, _ in .empty }, send: { _ in .empty }
        )
    }

    private static func current() -> FiberHTTPClient {
        @Dependency(\.fiber) var fiber
        return .live(fiber)
    }

    private static func unimplemented(_ endpoint: String, _ target: String) throws -> FiberResponse {
        let error = UnimplementedEndpoint(endpoint: "FiberHTTPClient.\(endpoint)", target: target)
        reportIssue(error.description)
        throw FiberError.networkError(underlying: error)
    }
}

extension DependencyValues {
    /// The struct-of-closures HTTP client (`FiberHTTPClient`): live, it forwards to `\.fiber`.
    public var fiberHTTPClient: FiberHTTPClient {
        get { self[FiberHTTPClient.self] }
        set { self[FiberHTTPClient.self] = newValue }
    }
}
