import Fiber
import FiberRuntime
import Foundation

/// What a `CachedResource` fetches: a path, its query and a policy. Made with
/// `.api(...)` and `.cachedAPI(...)`.
public struct APIKey<T: Decodable & Sendable>: Sendable {
    /// The path, appended to the base URL.
    public var path: String
    /// The query items.
    public var query: [String: String]
    /// How responses are cached.
    public var policy: CachePolicy

    /// `path` as `T`, cached under `policy`.
    public static func api(_ path: String, as type: T.Type = T.self, query: [String: String] = [:],
                           policy: CachePolicy = .default) -> APIKey<T> {
        APIKey(path: path, query: query, policy: policy)
    }

    /// `path` as `T`, fresh for `ttl` seconds, kept in `storage`.
    public static func cachedAPI(_ path: String, as type: T.Type = T.self, query: [String: String] = [:],
                                 ttl: TimeInterval, storage: CachePolicy.StorageMode = .memory) -> APIKey<T> {
        APIKey(path: path, query: query, policy: CachePolicy(ttl: ttl, storageMode: storage))
    }
}

/// An observable cached GET: the stand-in for `@SharedReader(.api(...))`.
/// A service awaits it (`load()`) or iterates `values`, which yields the
/// value and then each newer one as the cache entry is refreshed (in the
/// background by stale-while-revalidate, by another caller, by `reload()`)
/// or invalidated (then it is fetched again).
///
/// ```swift
/// let users = CachedResource(.api("/users", as: [User].self, policy: .aggressive), fiber: fiber)
/// let first = try await users.load()
/// for try await update in users.values { render(update.value) }
/// ```
public final class CachedResource<T: Decodable & Sendable>: Sendable {
    /// What is fetched.
    public let key: APIKey<T>
    /// The client that fetches it.
    public let fiber: SharedFiber
    private let latest = Locked<CachedResponse<T>?>(nil)

    /// A resource for `key` fetched by `fiber`. Nothing is fetched until `load()` or `values`.
    public init(_ key: APIKey<T>, fiber: SharedFiber) {
        self.key = key
        self.fiber = fiber
    }

    /// The last value loaded or observed, if any.
    public var current: CachedResponse<T>? { latest.withLock { $0 } }

    /// The value as `getCached` serves it (stored if fresh or stale, else fetched).
    ///
    /// - Throws: as `SharedFiber.getCached`.
    @discardableResult
    public func load() async throws -> CachedResponse<T> {
        publish(try await fiber.getCached(key.path, as: T.self, query: key.query, policy: key.policy))
    }

    /// The value fetched from the network now (conditionally, if the entry has validators), whatever its freshness.
    /// A request for the entry already under way (a miss, a background refresh) is joined, not repeated.
    ///
    /// - Throws: as `SharedFiber.getCached`.
    @discardableResult
    public func reload() async throws -> CachedResponse<T> {
        let lookup = CacheLookup(fiber: fiber, path: key.path, query: key.query, policy: key.policy)
        return publish(try await lookup.run(as: T.self, force: true))
    }

    /// The value, then each change of its cache entry, until the consumer
    /// stops iterating; ends with the error of a failed fetch.
    public var values: AsyncThrowingStream<CachedResponse<T>, any Error> {
        AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    try await self.follow { continuation.yield($0) }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// Loads, then yields each new version of the entry (entries are told
    /// apart by their version, so the resource's own stores are not repeated).
    private func follow(_ yield: (CachedResponse<T>) -> Void) async throws {
        let lookup = CacheLookup(fiber: fiber, path: key.path, query: key.query, policy: key.policy)
        let changes = await fiber.store.changes(for: lookup.key)
        var (current, lastID) = try await lookup.runTracked(as: T.self, force: false)
        yield(publish(current))
        for await _ in changes {
            if let (entry, source) = await lookup.usableEntry() {
                guard entry.id != lastID else { continue }
                lastID = entry.id
                current = try entry.response(as: T.self, decoder: lookup.client.configuration.decoder,
                                           now: fiber.store.clock.now(), source: source)
            } else {
                (current, lastID) = try await lookup.runTracked(as: T.self, force: false)
            }
            yield(publish(current))
        }
    }

    @discardableResult
    private func publish(_ response: CachedResponse<T>) -> CachedResponse<T> {
        latest.withLock { $0 = response }
        return response
    }
}
