/// A request refused because its client is shutting down (`Fiber.shutdown(gracePeriod:)`,
/// or the `FiberService` of `FiberServiceLifecycle` on a graceful shutdown).
///
/// It reaches the caller inside `FiberError.networkError(underlying:)`, at once,
/// before any interceptor runs; `FiberError.isShutdown` is true for it:
///
/// ```swift
/// do {
///     try await api.get("/feed")
/// } catch let error as FiberError where error.isShutdown {
///     // the process is stopping: do not retry
/// }
/// ```
public struct ShutdownError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The URL of the refused request.
    public let url: String

    /// An error for a request to `url`.
    public init(url: String) { self.url = url }

    /// "client shut down: request to https://… refused".
    public var description: String { "client shut down: request to \(url) refused" }
}

extension FiberError {
    /// True when the request was refused because its client is shutting down (a `ShutdownError`).
    /// A retry cannot succeed on that client.
    public var isShutdown: Bool {
        if case .networkError(let underlying) = self { underlying is ShutdownError } else { false }
    }
}
