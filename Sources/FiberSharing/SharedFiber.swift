import Fiber
import FiberRuntime
import Foundation

/// A client that follows a shared `FiberConfiguration`: each call uses a
/// `Fiber` built from the configuration's current value, rebuilt the first
/// time it is used after the configuration changed. It adds cached GETs
/// (`getCached`) over a `SharedCacheStore`.
///
/// ```swift
/// let fiber = SharedFiber()                       // reads @Shared(.fiberConfiguration)
/// let response = try await fiber.get("/users")
///
/// let custom = SharedFiber { config, fiberConfig in
///     fiberConfig.interceptors = [AuthInterceptor(tokenProvider: { config.authToken }), RetryInterceptor()]
///     fiberConfig.timeout = config.defaultTimeout
/// }
/// ```
///
/// Before the hook runs, the client gets the configuration's base URL,
/// `defaultTimeout` as its timeout, `defaultHeaders`, and
/// `Authorization: Bearer <authToken>` when a token is set; the hook may
/// change any of it (a transport too, which is how tests use a mock).
public final class SharedFiber: Sendable {
    /// Adjusts the `Fiber.Configuration` built for a `FiberConfiguration`.
    public typealias ConfigurationHook = @Sendable (FiberConfiguration, inout Fiber.Configuration) -> Void

    /// The shared configuration this client follows.
    public let reference: SharedReference<FiberConfiguration>
    /// The cache of `getCached`.
    public let store: SharedCacheStore
    private let hook: ConfigurationHook?
    let coalescer = SingleFlight<String, FetchOutcome>()
    private let built = Locked<(configuration: FiberConfiguration, client: Fiber)?>(nil)

    /// A client following `reference` (default: the process's `.fiberConfiguration`),
    /// caching in `store` (default: `SharedCacheStore.shared`), with an optional hook.
    public init(configuration reference: SharedReference<FiberConfiguration> = FiberConfigurationKey().reference,
                store: SharedCacheStore = .shared, configure: ConfigurationHook? = nil) {
        self.reference = reference
        self.store = store
        self.hook = configure
    }

    /// A client following the reference `key` names, with an optional hook.
    public convenience init(_ key: some SharedKey<FiberConfiguration>, store: SharedCacheStore = .shared,
                            configure: ConfigurationHook? = nil) {
        self.init(configuration: key.reference, store: store, configure: configure)
    }

    /// The configuration's current value.
    public var configuration: FiberConfiguration { reference.value }

    /// Each new configuration, as it is set; the client rebuilds itself on its next use.
    public var configurationChanges: AsyncStream<FiberConfiguration> { reference.changes }

    /// The client for the current configuration (built anew after a change).
    public var client: Fiber { current.client }

    /// The current configuration and the client built from it, as one snapshot.
    var current: (configuration: FiberConfiguration, client: Fiber) {
        let configuration = reference.value
        if let built = built.withLock({ $0 }), built.configuration == configuration { return built }
        // Built outside the lock, so a hook may read this client's properties.
        let client = Self.makeClient(configuration, hook: hook)
        return built.withLock { built in
            if let existing = built, existing.configuration == configuration { return existing }
            built = (configuration, client)
            return (configuration, client)
        }
    }

    private static func makeClient(_ configuration: FiberConfiguration, hook: ConfigurationHook?) -> Fiber {
        Fiber(configuration.baseURL.absoluteString) { fiberConfig in
            fiberConfig.timeout = configuration.defaultTimeout
            var headers = HTTPHeaders()
            for (name, value) in configuration.defaultHeaders.sorted(by: { $0.key < $1.key }) {
                headers.append(name: name, value: value)
            }
            if let token = configuration.authToken { headers.replaceOrAdd(name: "Authorization", value: "Bearer \(token)") }
            fiberConfig.defaultHeaders = headers
            hook?(configuration, &fiberConfig)
        }
    }
}
