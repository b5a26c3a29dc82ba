import Fiber
import Foundation

/// Where a `CachedResponse` came from.
public enum CacheSource: String, Sendable, Hashable, Codable {
    /// The memory tier.
    case memory
    /// The disk tier.
    case disk
    /// A full response from the network.
    case network
    /// A stored body confirmed by a `304 Not Modified`.
    case revalidated
}

/// A decoded value with what the cache knows about it: its age, whether it
/// is still fresh, and the validators the server gave.
///
/// ```swift
/// let result = try await fiber.getCached("/users", as: [User].self)
/// result.value; result.isFresh; result.isExpired; result.age; result.etag; result.lastModified
/// ```
///
/// The flags are a snapshot taken when the response was returned.
public struct CachedResponse<T: Sendable>: Sendable {
    /// The decoded value.
    public let value: T
    /// True while the response is within its lifetime (the policy's TTL or the server's `max-age`).
    public let isFresh: Bool
    /// True once past its lifetime (served stale, or about to be revalidated); the opposite of `isFresh`.
    public var isExpired: Bool { !isFresh }
    /// True when it is past its lifetime but inside the stale-while-revalidate window.
    public let isStale: Bool
    /// Seconds since the response was generated (its `Age` on arrival included).
    public let age: TimeInterval
    /// The `ETag` the server sent, if any (quotes included: `"v1"`).
    public let etag: String?
    /// The `Last-Modified` the server sent, if any.
    public let lastModified: String?
    /// Where this value came from.
    public let source: CacheSource
    /// When the stored response arrived (or was last revalidated).
    public let storedAt: Date

    /// A cached response from its parts (for stubs and tests).
    public init(value: T, isFresh: Bool, isStale: Bool = false, age: TimeInterval, etag: String? = nil,
                lastModified: String? = nil, source: CacheSource, storedAt: Date) {
        self.value = value
        self.isFresh = isFresh
        self.isStale = isStale
        self.age = age
        self.etag = etag
        self.lastModified = lastModified
        self.source = source
        self.storedAt = storedAt
    }

    /// The same metadata around another value.
    public func map<U: Sendable>(_ transform: (T) throws -> U) rethrows -> CachedResponse<U> {
        CachedResponse<U>(value: try transform(value), isFresh: isFresh, isStale: isStale, age: age, etag: etag,
                          lastModified: lastModified, source: source, storedAt: storedAt)
    }
}

extension CachedResponse: Equatable where T: Equatable {}
