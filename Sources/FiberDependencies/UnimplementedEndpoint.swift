/// The error a test value of `FiberHTTPClient` or `\.fiber` throws when code under
/// test calls an endpoint the test did not override (after reporting a test failure).
public struct UnimplementedEndpoint: Error, CustomStringConvertible, Sendable {
    /// The endpoint called, such as `FiberHTTPClient.get`.
    public let endpoint: String
    /// The path or URL it was called with.
    public let target: String

    /// What was called, and how to fix the test.
    public var description: String {
        "\(endpoint)(\"\(target)\") was called in a test without an override; "
            + "set it with withDependencies { $0.fiberHTTPClient.… = { … } } or $0.fiber = …"
    }
}
