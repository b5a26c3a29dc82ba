import Foundation

/// Whether one request reads from and writes to its client's `CacheInterceptor`, and
/// how long what it stores stays fresh.
///
/// | `useCache` | `storeCache` | effect |
/// | --- | --- | --- |
/// | true | true | the cache's normal rules (the default without a policy) |
/// | true | false | a stored response may answer; the response is not stored |
/// | false | true | always to the network; the response is stored |
/// | false | false | the cache is not involved |
public struct CachePolicy: Sendable, Hashable {
    /// Whether a stored response may answer the request.
    public var useCache: Bool
    /// Whether the response may be stored.
    public var storeCache: Bool
    /// When what is stored stops being fresh, replacing the lifetime the response or the
    /// cache's `ttl` gives it (nil: theirs). A response that says `no-store` is still not stored.
    public var expireTime: Date?

    /// A policy from its parts.
    public init(useCache: Bool = true, storeCache: Bool = true, expireTime: Date? = nil) {
        self.useCache = useCache
        self.storeCache = storeCache
        self.expireTime = expireTime
    }

    /// Neither read nor written.
    public static let bypass = CachePolicy(useCache: false, storeCache: false)
}
