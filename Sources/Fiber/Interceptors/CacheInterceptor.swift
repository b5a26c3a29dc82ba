import Foundation

/// An in-memory cache of successful responses to GET and HEAD requests, with
/// a time to live and least-recently-used eviction.
///
/// A hit returns the stored response for the current request (its trace ID,
/// a zero duration) without calling `next`. Only 2xx responses are stored,
/// never streamed ones nor ones marked `Cache-Control: no-store`; a request
/// with `.meta("cache", "skip")` bypasses the cache both ways. Entries are
/// keyed by method, URL and `Authorization` value, so users with different
/// tokens never see each other's responses.
///
/// ```swift
/// let cache = CacheInterceptor(ttl: 300, maxEntries: 100)
/// await cache.evict(url: "/config")
/// await cache.clear()
/// ```
public struct CacheInterceptor: Interceptor {
    /// `"cache"`.
    public let name = "cache"
    private let store: CacheStore
    private let cacheableMethods: Set<HTTPMethod>

    /// - Parameters:
    ///   - ttl: seconds an entry stays fresh.
    ///   - maxEntries: entries kept before the least recently used is evicted.
    ///   - clock: the time source for expiry (tests pass a virtual one).
    public init(ttl: TimeInterval = 300, maxEntries: Int = 100, cacheableMethods: Set<HTTPMethod> = [.get, .head],
                clock: FiberClock = .continuous) {
        self.store = CacheStore(cache: ResponseCache(ttl: .seconds(clamping: ttl), maxEntries: maxEntries), clock: clock)
        self.cacheableMethods = cacheableMethods
    }

    /// - Throws: what `next` throws.
    public func intercept(_ request: FiberRequest, next: @escaping InterceptorNext) async throws -> FiberResponse {
        guard cacheableMethods.contains(request.httpMethod), request.metadata["cache"] != "skip" else {
            return try await next(request)
        }
        let key = Self.key(for: request)
        if let hit = await store.value(for: key) {
            return FiberResponse(data: hit.data, statusCode: hit.statusCode, headers: hit.headers, request: request,
                                 duration: 0, traceID: TraceContext.traceID)
        }
        let response = try await next(request)
        if response.isSuccess, !response.isStreamed, !Self.forbidsStoring(response) {
            await store.store(response, for: key)
        }
        return response
    }

    /// Drops every entry.
    public func clear() async { await store.clear() }

    /// Drops the entries for `url`: a full URL, or a path (with its query, if
    /// given) that is matched against every entry's URL.
    public func evict(url: String) async { await store.evict(url: url) }

    /// The number of entries (expired ones included until they are touched).
    public var count: Int { get async { await store.count } }

    static func key(for request: FiberRequest) -> String {
        let auth = request.headers.first(name: "Authorization").map { " " + $0 } ?? ""
        return "\(request.httpMethod.rawValue) \(request.url.absoluteString)\(auth)"
    }

    private static func forbidsStoring(_ response: FiberResponse) -> Bool {
        response.headers.containsToken("no-store", in: "Cache-Control")
    }
}

/// The actor that owns the cache's state.
actor CacheStore {
    private var cache: ResponseCache<FiberResponse>
    private let clock: FiberClock

    init(cache: ResponseCache<FiberResponse>, clock: FiberClock) {
        self.cache = cache
        self.clock = clock
    }

    var count: Int { cache.count }

    func value(for key: String) -> FiberResponse? { cache.value(for: key, now: clock.now()) }

    func store(_ response: FiberResponse, for key: String) { cache.store(response, for: key, now: clock.now()) }

    func clear() { cache.removeAll() }

    func evict(url: String) {
        cache.removeAll { key in
            // key: "METHOD URL[ auth]"
            let parts = key.split(separator: " ", maxSplits: 2)
            guard parts.count >= 2, let entryURL = URL(string: String(parts[1])) else { return false }
            if entryURL.absoluteString == url { return true }
            let path = entryURL.path
            let pathAndQuery = entryURL.query.map { path + "?" + $0 } ?? path
            return url == path || url == pathAndQuery
        }
    }
}
