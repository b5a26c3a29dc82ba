import Foundation

/// How `getCached` and `SharedCacheStore` keep responses: how long they are
/// fresh, how long stale ones are still served while a refresh runs, where
/// they are kept, and how many the memory tier holds.
///
/// ```swift
/// let policy = CachePolicy(ttl: 300, staleWhileRevalidate: 60, storageMode: .memoryAndDisk, maxEntries: 100)
/// let users = try await fiber.getCached("/users", as: [User].self, policy: .aggressive)
/// ```
///
/// `ttl` and `staleWhileRevalidate` apply when the server says nothing: a
/// response's own `Cache-Control` (`max-age`, `no-cache`, `must-revalidate`,
/// `stale-while-revalidate`) wins (see `HTTPCacheRules`).
public struct CachePolicy: Sendable, Hashable, Codable {
    /// Where entries are kept.
    public enum StorageMode: String, Sendable, Hashable, Codable {
        /// In memory only: fast, gone when the process ends.
        case memory
        /// On disk only: survives restarts, read from disk on every hit.
        case disk
        /// In memory first, with the disk behind it (a disk hit is promoted to memory).
        case memoryAndDisk
    }

    /// Seconds a response stays fresh.
    public var ttl: TimeInterval
    /// Seconds after `ttl` during which the stale response is served at once while one background request refreshes it.
    public var staleWhileRevalidate: TimeInterval
    /// Where entries are kept.
    public var storageMode: StorageMode
    /// The most entries the memory tier keeps when storing under this policy; the least recently used go first.
    public var maxEntries: Int

    /// A policy from its parts (negative values count as zero).
    public init(ttl: TimeInterval, staleWhileRevalidate: TimeInterval = 0, storageMode: StorageMode = .memory,
                maxEntries: Int = 100) {
        self.ttl = max(0, ttl)
        self.staleWhileRevalidate = max(0, staleWhileRevalidate)
        self.storageMode = storageMode
        self.maxEntries = max(0, maxEntries)
    }

    /// 5 minutes fresh, no stale window, memory, 100 entries: general API responses.
    public static let `default` = CachePolicy(ttl: 300, staleWhileRevalidate: 0, storageMode: .memory, maxEntries: 100)
    /// 30 minutes fresh, 60 s stale window, memory and disk, 200 entries: semi-static data.
    public static let aggressive = CachePolicy(ttl: 1800, staleWhileRevalidate: 60, storageMode: .memoryAndDisk,
                                               maxEntries: 200)
    /// 1 hour fresh, 5 minutes stale window, disk, 500 entries: reference data, catalogues.
    public static let persistent = CachePolicy(ttl: 3600, staleWhileRevalidate: 300, storageMode: .disk, maxEntries: 500)
    /// Nothing kept: every call goes to the network.
    public static let noCache = CachePolicy(ttl: 0, staleWhileRevalidate: 0, storageMode: .memory, maxEntries: 0)

    /// True when nothing may be stored or served under this policy (`.noCache`).
    public var disablesCaching: Bool { maxEntries == 0 || (ttl == 0 && staleWhileRevalidate == 0) }
}
