/// A request refused before it was sent because the client's `ConnectionMonitor`
/// reports the machine offline (no usable default route).
///
/// It reaches the caller inside `FiberError.networkError(underlying:)`, whose
/// `isOffline` is true for it:
///
/// ```swift
/// do {
///     try await api.get("/feed")
/// } catch let error as FiberError where error.isOffline {
///     showOfflineBanner()
/// }
/// ```
public struct OfflineError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The host the request was for.
    public let host: String

    /// An error for a request to `host`.
    public init(host: String) { self.host = host }

    /// "offline: no route to reach api.example.com".
    public var description: String { "offline: no route to reach \(host)" }
}
