import Fiber
import FiberRuntime
import Foundation

extension SharedFiber {
    /// A cached `GET` decoded as `T`: from memory, else disk, else the network.
    ///
    /// - A fresh entry is returned as is.
    /// - A stale one inside its stale-while-revalidate window is returned at
    ///   once while one background request refreshes it (one, however many
    ///   callers see it stale).
    /// - Otherwise one request is made for all concurrent callers of the key,
    ///   conditional (`If-None-Match`, `If-Modified-Since`) when the entry has
    ///   validators; a `304` refreshes the entry without a body.
    ///
    /// The server's `Cache-Control` (`max-age`, `no-store`, `no-cache`,
    /// `must-revalidate`, `private`, `stale-while-revalidate`), `Vary` and
    /// `Age` take precedence over `policy`; `.noCache` always goes to the network.
    ///
    /// - Throws: `FiberError.httpError` for a status other than 2xx (or 304 to
    ///   a conditional request), `.decodingError` when the body is not a `T`
    ///   (nothing is stored then), and what `Fiber.send(_:)` throws.
    public func getCached<T: Decodable & Sendable>(_ path: String, as type: T.Type = T.self,
                                                   query: [String: String] = [:],
                                                   policy: CachePolicy = .default) async throws -> CachedResponse<T> {
        let lookup = CacheLookup(fiber: self, path: path, query: query, policy: policy)
        return try await lookup.run(as: type, force: false)
    }

    /// The key `getCached` stores `path` and `query` under with the current
    /// configuration: `GET:/path?query` and a scope of base URL and credentials.
    public func cacheKey(for path: String, query: [String: String] = [:]) -> String {
        CacheLookup(fiber: self, path: path, query: query, policy: .default).key
    }

    /// Drops the cached GETs of `path`: with `query`, only that query; without, every query of the path.
    public func invalidateCache(for path: String, query: [String: String] = [:]) async {
        let primary = SharedCacheKey.primary(method: "GET", path: path, query: query)
        let anyQuery = query.isEmpty
        await store.invalidate { key in
            let part = SharedCacheKey.primaryPart(of: key)
            return part == primary || (anyQuery && part.hasPrefix(primary + "?"))
        }
    }

    /// Drops every cached entry whose key starts with `prefix` (`"GET:/users"`).
    public func invalidateCacheMatching(_ prefix: String) async {
        await store.invalidateMatching(prefix)
    }

    /// Drops every cached entry, memory and disk.
    public func clearCache() async {
        await store.invalidateAll()
    }

    /// Returns once no cache request of this client is running (background refreshes included).
    public func waitForBackgroundRefreshes() async {
        await coalescer.waitUntilIdle()
    }
}
