import FiberRuntime
import Foundation

/// An in-memory HTTP cache of responses to GET and HEAD requests, following
/// RFC 9111 as a private cache, with least-recently-used eviction.
///
/// - What the server says wins: `Cache-Control` `max-age`, `no-store`,
///   `no-cache`, `must-revalidate`, `stale-while-revalidate`, `Expires`,
///   `Age` and `Vary` decide what is stored and for how long; `ttl` is the
///   lifetime of a response that says nothing.
/// - A fresh entry answers without calling `next` (the current request's
///   trace ID, a zero duration, an `Age` header). An expired entry with an
///   `ETag` or `Last-Modified` is revalidated with `If-None-Match` /
///   `If-Modified-Since`; a `304` refreshes it and answers with the stored
///   body. Inside a `stale-while-revalidate` window the stale entry answers at
///   once and one background request refreshes it.
/// - A request with `Cache-Control: no-cache` (or `Pragma: no-cache`) is
///   revalidated; one with `.meta("cache", "skip")` bypasses the cache both
///   ways. Entries are keyed by method, URL and `Authorization` value, and a
///   `Vary` response is served only to requests with the same varying headers,
///   so users never see each other's responses.
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
    ///   - ttl: seconds a response without its own lifetime stays fresh.
    ///   - maxEntries: entries kept before the least recently used is evicted.
    ///   - clock: the time source for freshness (tests pass a virtual one).
    public init(ttl: TimeInterval = 300, maxEntries: Int = 100, cacheableMethods: Set<HTTPMethod> = [.get, .head],
                clock: FiberClock = .continuous) {
        self.store = CacheStore(maxEntries: maxEntries, rules: HTTPCacheRules(defaultLifetime: ttl), clock: clock)
        self.cacheableMethods = cacheableMethods
    }

    /// - Throws: what `next` throws.
    public func intercept(_ request: FiberRequest, next: @escaping InterceptorNext) async throws -> FiberResponse {
        guard cacheableMethods.contains(request.httpMethod), request.metadata["cache"] != "skip" else {
            return try await next(request)
        }
        let key = Self.key(for: request)
        let lookup = store.lookup(key, for: request)
        switch lookup {
        case .fresh(let entry, let age):
            return entry.answer(to: request, age: age)
        case .stale(let entry, let age):
            if store.beginRefresh(key) {
                Task { await refresh(key, request: request, validating: entry, next: next) }
            }
            return entry.answer(to: request, age: age)
        case .expired(let entry):
            return try await fetch(key, request: request, validating: entry, next: next)
        case .miss:
            return try await fetch(key, request: request, validating: nil, next: next)
        }
    }

    /// Drops every entry.
    public func clear() async { store.clear() }

    /// Drops the entries for `url`: a full URL, or a path (with its query, if
    /// given) that is matched against every entry's URL.
    public func evict(url: String) async { store.evict(url: url) }

    /// The number of entries (expired ones included until they are touched).
    public var count: Int { get async { store.count } }

    static func key(for request: FiberRequest) -> String {
        let auth = request.headers.first(name: "Authorization").map { " " + $0 } ?? ""
        return "\(request.httpMethod.rawValue) \(request.url.absoluteString)\(auth)"
    }

    // MARK: Network

    /// Sends the request (conditional when `entry` has validators), stores what may be stored, and answers.
    private func fetch(_ key: String, request: FiberRequest, validating entry: CachedEntry?,
                       next: @escaping InterceptorNext) async throws -> FiberResponse {
        let requestTime = store.now()
        let response = try await next(entry.map { $0.conditional(request) } ?? request)
        return store.record(response, for: key, request: request, requestTime: requestTime, validated: entry)
    }

    /// The background half of stale-while-revalidate; failures leave the stale entry to expire.
    private func refresh(_ key: String, request: FiberRequest, validating entry: CachedEntry,
                         next: @escaping InterceptorNext) async {
        _ = try? await fetch(key, request: request, validating: entry, next: next)
        store.endRefresh(key)
    }
}

/// One stored response with what RFC 9111 needs to judge it later.
struct CachedEntry: Sendable {
    var response: FiberResponse
    var freshness: CacheFreshness
    /// The request's values of the headers the response varies on.
    var vary: [String: String?]
    var varyNames: [String]

    var hasValidators: Bool {
        response.headers.contains(name: "ETag") || response.headers.contains(name: "Last-Modified")
    }

    /// The stored response as the answer to `request`.
    func answer(to request: FiberRequest, age: TimeInterval) -> FiberResponse {
        var headers = response.headers
        headers.replaceOrAdd(name: "Age", value: String(Int(age)))
        return FiberResponse(data: response.data, statusCode: response.statusCode, headers: headers, request: request,
                             duration: 0, traceID: TraceContext.traceID)
    }

    /// `request` made conditional on this entry's validators (unless the caller set its own).
    func conditional(_ request: FiberRequest) -> FiberRequest {
        var conditional = request
        if let etag = response.headers.first(name: "ETag"), !request.headers.contains(name: "If-None-Match") {
            conditional = conditional.header("If-None-Match", etag)
        }
        if let modified = response.headers.first(name: "Last-Modified"), !request.headers.contains(name: "If-Modified-Since") {
            conditional = conditional.header("If-Modified-Since", modified)
        }
        return conditional
    }
}

/// The cache's state: the LRU of entries and the keys being refreshed in the
/// background. A lock rather than an actor: one cache serves requests on
/// every event loop, and an actor hop would cost a thread switch each way,
/// far more than a lookup.
final class CacheStore: Sendable {
    enum Lookup {
        case fresh(CachedEntry, age: TimeInterval)
        case stale(CachedEntry, age: TimeInterval)
        case expired(CachedEntry)
        case miss
    }

    private struct State {
        var cache: ResponseCache<CachedEntry>
        var refreshing: Set<String> = []
    }

    private let state: Locked<State>
    private let rules: HTTPCacheRules
    private let clock: FiberClock
    /// The wall-clock time the clock's zero stands for (freshness compares with `Date` headers).
    private let origin = Date()

    init(maxEntries: Int, rules: HTTPCacheRules, clock: FiberClock) {
        // Entries leave by LRU or by being judged expired; freshness, not this TTL, decides.
        self.state = Locked(State(cache: ResponseCache(ttl: .seconds(365 * 24 * 3600), maxEntries: maxEntries)))
        self.rules = rules
        self.clock = clock
    }

    var count: Int { state.withLock { $0.cache.count } }

    func now() -> Date { origin.addingTimeInterval(clock.now().seconds) }

    func lookup(_ key: String, for request: FiberRequest) -> Lookup {
        let instant = clock.now()
        guard let entry = state.withLock({ $0.cache.value(for: key, now: instant) }),
              HTTPCacheRules.varySnapshot(names: entry.varyNames, requestHeaders: request.headers) == entry.vary else {
            return .miss
        }
        let now = now()
        if rules.requestRequiresValidation(request.headers) {
            return entry.hasValidators ? .expired(entry) : .miss
        }
        switch entry.freshness.state(at: now) {
        case .fresh: return .fresh(entry, age: entry.freshness.age(at: now))
        case .stale: return .stale(entry, age: entry.freshness.age(at: now))
        case .expired: return entry.hasValidators ? .expired(entry) : .miss
        }
    }

    /// Stores `response` if it may be stored, or refreshes `validated` on a
    /// `304`; returns what the caller gets.
    func record(_ response: FiberResponse, for key: String, request: FiberRequest, requestTime: Date,
                validated: CachedEntry?) -> FiberResponse {
        let responseTime = now()
        let instant = clock.now()
        if response.statusCode == 304, var entry = validated {
            entry.response = FiberResponse(data: entry.response.data, statusCode: entry.response.statusCode,
                                           headers: HTTPCacheRules.merging(entry.response.headers, with: response.headers),
                                           request: request, duration: response.duration, traceID: response.traceID)
            entry.freshness = rules.freshness(responseHeaders: entry.response.headers, requestTime: requestTime,
                                              responseTime: responseTime)
            let refreshed = entry
            state.withLock { $0.cache.store(refreshed, for: key, now: instant) }
            return entry.answer(to: request, age: entry.freshness.age(at: responseTime)).withDuration(response.duration)
        }
        guard !response.isStreamed, response.isSuccess,
              rules.canStore(method: request.httpMethod, statusCode: response.statusCode, requestHeaders: request.headers,
                             responseHeaders: response.headers),
              let names = HTTPCacheRules.varyNames(response.headers) else {
            if validated != nil { state.withLock { $0.cache.removeAll { $0 == key } } }
            return response
        }
        let entry = CachedEntry(response: response,
                                freshness: rules.freshness(responseHeaders: response.headers, requestTime: requestTime,
                                                           responseTime: responseTime),
                                vary: HTTPCacheRules.varySnapshot(names: names, requestHeaders: request.headers), varyNames: names)
        state.withLock { $0.cache.store(entry, for: key, now: instant) }
        return response
    }

    /// True when no background refresh of `key` runs yet (and marks one as running).
    func beginRefresh(_ key: String) -> Bool { state.withLock { $0.refreshing.insert(key).inserted } }

    func endRefresh(_ key: String) { state.withLock { _ = $0.refreshing.remove(key) } }

    func clear() { state.withLock { $0.cache.removeAll() } }

    func evict(url: String) {
        state.withLock { state in
            state.cache.removeAll { key in
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
}

extension FiberResponse {
    /// The same response with another duration.
    func withDuration(_ duration: TimeInterval) -> FiberResponse {
        FiberResponse(data: data, statusCode: statusCode, headers: headers, request: request, duration: duration, traceID: traceID)
    }
}
