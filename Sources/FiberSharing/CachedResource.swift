import Fiber
import Foundation
import Synchronization

/// What a `CachedResource` fetches: a path, its query and a policy. Made with
/// the seed's names, `.api(...)` and `.cachedAPI(...)`.
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
    private let latest = Mutex<CachedResponse<T>?>(nil)

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
    ///
    /// - Throws: as `SharedFiber.getCached`.
    @discardableResult
    public func reload() async throws -> CachedResponse<T> {
        let lookup = CacheLookup(fiber: fiber, client: fiber.client, path: key.path, query: key.query, policy: key.policy)
        return publish(try await lookup.run(as: T.self, force: true))
    }

    /// The value, then each change of its cache entry, until the consumer
    /// stops iterating; ends with the error of a failed fetch.
    public var values: AsyncThrowingStream<CachedResponse<T>, any Error> {
        AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    let cacheKey = fiber.cacheKey(for: key.path, query: key.query)
                    let changes = await fiber.store.changes(for: cacheKey)
                    var last = try await load()
                    continuation.yield(last)
                    for await _ in changes {
                        var next = try await stored()
                        if next == nil { next = try await load() }
                        guard let next else { continue }
                        guard next.storedAt != last.storedAt || next.isFresh != last.isFresh else { continue }
                        last = next
                        continuation.yield(next)
                    }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// The stored entry as it is now, without the network.
    private func stored() async throws -> CachedResponse<T>? {
        let lookup = CacheLookup(fiber: fiber, client: fiber.client, path: key.path, query: key.query, policy: key.policy)
        guard let (entry, source) = await lookup.usableEntry() else { return nil }
        return publish(try entry.response(as: T.self, decoder: fiber.client.configuration.decoder,
                                          now: fiber.store.clock.now(), source: source))
    }

    @discardableResult
    private func publish(_ response: CachedResponse<T>) -> CachedResponse<T> {
        latest.withLock { $0 = response }
        return response
    }
}
