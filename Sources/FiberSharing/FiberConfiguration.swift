import Foundation

/// What every `SharedFiber` of the process is built from: base URL, bearer
/// token, timeout and default headers. Shared through a `SharedReference`
/// (`.fiberConfiguration` is the process's), changed with `withLock`.
///
/// ```swift
/// @Shared(.fiberConfiguration) var config
/// $config.withLock {
///     $0.baseURL = URL(string: "https://staging.api.com")!
///     $0.authToken = "new-token"
///     $0.defaultTimeout = 60
///     $0.defaultHeaders["X-Feature-Flag"] = "new-ui"
/// }
/// ```
public struct FiberConfiguration: Sendable, Hashable, Codable {
    /// The URL that paths are appended to.
    public var baseURL: URL
    /// A bearer token sent as `Authorization: Bearer <token>` when set.
    public var authToken: String?
    /// Seconds a whole request may take.
    public var defaultTimeout: TimeInterval
    /// Header fields added to every request that does not set them itself.
    public var defaultHeaders: [String: String]

    /// A configuration as given; by default `http://localhost`, no token, 30 s, no headers.
    public init(baseURL: URL = FiberConfiguration.localhost, authToken: String? = nil,
                defaultTimeout: TimeInterval = 30, defaultHeaders: [String: String] = [:]) {
        self.baseURL = baseURL
        self.authToken = authToken
        self.defaultTimeout = defaultTimeout
        self.defaultHeaders = defaultHeaders
    }

    /// `http://localhost`, the default base URL.
    public static let localhost = URL(string: "http://localhost") ?? URL(fileURLWithPath: "/")
}
