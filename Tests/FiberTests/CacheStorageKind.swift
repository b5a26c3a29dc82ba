import Fiber
import FiberSQLite
import FiberTesting
import Foundation
import Testing

/// Each place a `CacheInterceptor` can keep its entries; the cache's behaviour
/// tests run once for each, so every storage is held to the same rules.
enum CacheStorageKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    /// The interceptor's own memory (`CacheInterceptor(ttl:maxEntries:)`).
    case builtIn
    case memory
    case disk
    case sqlite

    var testDescription: String { rawValue }

    /// A cache over a fresh storage of this kind (in a new temporary directory, removed by `directory`'s owner).
    func cache(ttl: TimeInterval = 300, maxEntries: Int = 100, clock: FiberClock, in directory: TemporaryDirectory)
        throws -> CacheInterceptor {
        switch self {
        case .builtIn:
            return CacheInterceptor(ttl: ttl, maxEntries: maxEntries, clock: clock)
        case .memory:
            return CacheInterceptor(storage: MemoryCacheStorage(maxEntries: maxEntries), ttl: ttl, clock: clock)
        case .disk:
            let storage = DiskCacheStorage(directory: directory.url.appendingPathComponent("records"),
                                           limits: DiskCacheLimits(maxEntries: maxEntries))
            return CacheInterceptor(storage: storage, ttl: ttl, clock: clock)
        case .sqlite:
            let storage = try SQLiteCacheStorage(path: directory.url.appendingPathComponent("cache.sqlite").path,
                                                 maxEntries: maxEntries)
            return CacheInterceptor(storage: storage, ttl: ttl, clock: clock)
        }
    }
}

/// A directory under the system's temporary directory, removed when the value is released.
final class TemporaryDirectory: Sendable {
    let url: URL

    init(_ name: String = "fiber-cache") {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }
}
