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
public final class CacheInterceptor: Interceptor, InlineInterceptor {
    /// `"cache"`.
    public let name = "cache"
    let store: CacheStore
    /// Where entries are kept when not in the cache's own memory (`init(storage:…)`).
    let storage: (any CacheStorage)?
    /// The background refreshes of stale entries, one per key at a time.
    let refreshes = SingleFlight<CacheDigest, Void>()
    private let cacheableMethods: SmallSet<HTTPMethod>

    /// - Parameters:
    ///   - ttl: seconds a response without its own lifetime stays fresh.
    ///   - maxEntries: entries kept before the least recently used is evicted.
    ///   - cacheableMethods: the methods whose responses are stored (default GET and HEAD).
    ///   - clock: the time source for freshness (tests pass a virtual one).
    public init(ttl: TimeInterval = 300, maxEntries: Int = 100, cacheableMethods: Set<HTTPMethod> = [.get, .head],
                clock: FiberClock = .continuous) {
        self.store = CacheStore(maxEntries: maxEntries, rules: HTTPCacheRules(defaultLifetime: ttl), clock: clock)
        self.storage = nil
        self.cacheableMethods = SmallSet(cacheableMethods)
    }

    /// A cache that keeps its entries in `storage` (memory, disk, a SQLite file
    /// several processes share, or your own), by the same rules.
    ///
    /// Keys name the method and URL and, for a request with `Authorization`, a
    /// SHA-256 of its value, so a storage never holds a credential. A storage
    /// that fails is a cache that misses: a request never fails because of it.
    ///
    /// - Parameters:
    ///   - storage: where entries are kept; its own limits decide eviction.
    ///   - ttl: seconds a response without its own lifetime stays fresh.
    ///   - cacheableMethods: the methods whose responses are stored (default GET and HEAD).
    ///   - clock: the time source for freshness (tests pass a virtual one).
    public init(storage: any CacheStorage, ttl: TimeInterval = 300, cacheableMethods: Set<HTTPMethod> = [.get, .head],
                clock: FiberClock = .continuous) {
        self.store = CacheStore(maxEntries: 0, rules: HTTPCacheRules(defaultLifetime: ttl), clock: clock)
        self.storage = storage
        self.cacheableMethods = SmallSet(cacheableMethods)
    }

    /// - Throws: what `next` throws.
    public func intercept(_ request: FiberRequest, next: @escaping InterceptorNext) async throws -> FiberResponse {
        try await run(request, next: InlineNext(next))
    }

    /// True when the cache has nothing to do with `request`: a method it does not cache,
    /// `.meta("cache", "skip")`, or a `CachePolicy` that neither reads nor writes.
    func passesOn(_ request: FiberRequest) -> Bool {
        if !cacheableMethods.contains(request.httpMethod) { return true }
        if !request.metadata.isEmpty && request.metadata["cache"] == "skip" { return true }
        if let policy = request.overrides?.cachePolicy, !policy.useCache && !policy.storeCache { return true }
        return false
    }

    /// A request the cache has nothing to do with needs nothing of this step.
    func handleAtOnce(_ request: FiberRequest) -> Bool { passesOn(request) }

    nonisolated(nonsending) func run(_ request: FiberRequest, next: InlineNext) async throws -> FiberResponse {
        guard !passesOn(request) else { return try await next(request) }
        if let storage { return try await run(request, in: storage, next: next) }
        let key = Self.key(for: request)
        // One reading of the clock serves the lookup and, on a miss, as the request's time.
        let instant = store.instant()
        if let policy = request.overrides?.cachePolicy, !policy.useCache || !policy.storeCache {
            return try await fetch(key, request: request, following: policy, at: instant, next: next)
        }
        switch store.lookup(key, for: request, at: instant) {
        case .fresh(let entry, let age):
            return entry.answer(to: request, age: age)
        case .stale(let entry, let age):
            startRefresh(key, request: request, validating: entry, next: next)
            return entry.answer(to: request, age: age)
        case .expired(let entry):
            return try await fetch(key, request: request, validating: entry, requestTime: store.date(at: instant), next: next)
        case .miss:
            return try await fetch(key, request: request, validating: nil, requestTime: store.date(at: instant), next: next)
        }
    }

    /// Drops every entry.
    public func clear() async {
        if let storage { try? await storage.removeAll() } else { store.clear() }
    }

    /// Drops the entries for `url`: a full URL, or a path (with its query, if
    /// given) that is matched against every entry's URL.
    public func evict(url: String) async {
        if let storage {
            try? await storage.removeRecords { CacheStorageKey.url(in: $0).map { CacheStore.matches($0, url) } ?? false }
        } else {
            store.evict(url: url)
        }
    }

    /// The number of entries (expired ones included until they are touched).
    public var count: Int {
        get async {
            if let storage { (try? await storage.count()) ?? 0 } else { store.count }
        }
    }

    static func key(for request: FiberRequest) -> CacheKey {
        CacheKey(method: request.httpMethod, url: request.location.text,
                 authorization: request.headers.first(name: "Authorization"))
    }

    // MARK: Network

    /// Sends the request (conditional when `entry` has validators), stores what may be stored, and answers.
    @inline(__always)  // one async frame fewer on every miss
    nonisolated(nonsending) private func fetch(_ key: consuming CacheKey, request: FiberRequest, validating entry: CachedEntry?,
                                               requestTime: Date, next: InlineNext) async throws -> FiberResponse {
        // Not `next(entry.map(…) ?? request)`: that copies the request on every miss.
        let response = if let entry { try await next(entry.conditional(request)) } else { try await next(request) }
        return store.record(response, for: key, request: request, requestTime: requestTime, validated: entry,
                            expiring: request.overrides?.cachePolicy?.expireTime) ?? response
    }

    /// A request whose `CachePolicy` reads without storing, or stores without reading: a
    /// fresh stored response answers when it may be read (nothing is revalidated, since a
    /// 304 would have to update the store); the response is stored when it may be.
    nonisolated(nonsending) private func fetch(_ key: CacheKey, request: FiberRequest, following policy: CachePolicy,
                                               at instant: Duration, next: InlineNext) async throws -> FiberResponse {
        if policy.useCache, case .fresh(let entry, let age) = store.lookup(key, for: request, at: instant) {
            return entry.answer(to: request, age: age)
        }
        let response = try await next(request)
        guard policy.storeCache else { return response }
        return store.record(response, for: key, request: request, requestTime: store.date(at: instant), validated: nil,
                            expiring: policy.expireTime) ?? response
    }

    /// Starts the background refresh of `key` unless one runs. A function of its own: a task's
    /// arguments are sized at run time, and inlined into `run` they cost a task allocation on every request.
    @inline(never)
    private func startRefresh(_ key: CacheKey, request: FiberRequest, validating entry: CachedEntry, next: InlineNext) {
        refreshes.startIfIdle(key.digest) { await self.refresh(key, request: request, validating: entry, next: next) }
    }

    /// The background half of stale-while-revalidate; failures leave the stale entry to expire.
    nonisolated(nonsending) private func refresh(_ key: CacheKey, request: FiberRequest, validating entry: CachedEntry,
                                                 next: InlineNext) async {
        _ = try? await fetch(key, request: request, validating: entry, requestTime: store.now(), next: next)
    }
}

/// What an entry is stored under: method, URL and `Authorization` value, so that
/// users never see each other's responses. Fields rather than one joined string,
/// so that making a key allocates nothing; the store finds entries by `digest`
/// and compares the whole key only with the entry found.
struct CacheKey: Hashable, Sendable {
    let method: HTTPMethod
    let url: String
    let authorization: String?
    let digest: CacheDigest

    init(method: HTTPMethod, url: String, authorization: String?) {
        self.method = method
        self.url = url
        self.authorization = authorization
        var hasher = Hasher()
        hasher.combine(method)
        hasher.combine(url)
        hasher.combine(authorization)
        digest = CacheDigest(value: hasher.finalize())
    }

    /// A key with a given digest (tests make two keys collide with it).
    init(method: HTTPMethod, url: String, authorization: String?, digest: CacheDigest) {
        self.method = method
        self.url = url
        self.authorization = authorization
        self.digest = digest
    }

    func hash(into hasher: inout Hasher) { hasher.combine(digest.value) }

    static func == (a: CacheKey, b: CacheKey) -> Bool {
        a.digest == b.digest && a.method == b.method && a.url == b.url && a.authorization == b.authorization
    }
}

/// A key's SipHash (seeded per process, so that nobody can aim two URLs at one
/// digest): the index of the store. An integer is hashed, compared and copied
/// without touching the key's strings, which on a miss the index would
/// otherwise retain, hash and compare three or four times.
struct CacheDigest: Hashable, Sendable {
    let value: Int
}

/// One stored response with what RFC 9111 needs to judge it later. Only the
/// body, status and header fields are kept: an answer carries the current
/// request and trace, so the rest of the response would be copied in and
/// released on eviction for nothing.
///
/// An immutable object: an entry's fields take some 160 bytes, and an entry moves
/// into, out of and within the store many times on a miss that stores; a
/// reference moves in one word.
final class CachedEntry: Sendable {
    /// The whole key: the store finds an entry by the key's digest alone.
    let key: CacheKey
    let data: Data
    let statusCode: Int
    let headers: HTTPHeaders
    let freshness: CacheFreshness
    /// The request's values of the headers the response varies on.
    let vary: [String: String?]
    let varyNames: [String]

    init(key: CacheKey, data: Data, statusCode: Int, headers: HTTPHeaders, freshness: CacheFreshness,
         vary: [String: String?], varyNames: [String]) {
        self.key = key
        self.data = data
        self.statusCode = statusCode
        self.headers = headers
        self.freshness = freshness
        self.vary = vary
        self.varyNames = varyNames
    }

    /// The same entry with the headers and freshness a `304` gave it.
    func refreshed(headers: HTTPHeaders, freshness: CacheFreshness) -> CachedEntry {
        CachedEntry(key: key, data: data, statusCode: statusCode, headers: headers, freshness: freshness, vary: vary,
                    varyNames: varyNames)
    }

    var hasValidators: Bool {
        headers.contains(name: "ETag") || headers.contains(name: "Last-Modified")
    }

    /// The stored response as the answer to `request`.
    func answer(to request: FiberRequest, age: TimeInterval) -> FiberResponse {
        var headers = headers
        headers.replaceOrAdd(name: "Age", value: String(Int(age)))
        return FiberResponse(data: data, statusCode: statusCode, headers: headers, request: request, duration: 0,
                             traceID: TraceContext.traceID)
    }

    /// `request` made conditional on this entry's validators (unless the caller set its own).
    func conditional(_ request: FiberRequest) -> FiberRequest {
        var conditional = request
        if let etag = headers.first(name: "ETag"), !request.headers.contains(name: "If-None-Match") {
            conditional = conditional.header("If-None-Match", etag)
        }
        if let modified = headers.first(name: "Last-Modified"), !request.headers.contains(name: "If-Modified-Since") {
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
        var cache = LRUMap<CacheDigest, CachedEntry>()
        let maxEntries: Int

        /// Stores `entry` as just used; past `maxEntries` the least recently used goes.
        mutating func store(_ entry: consuming CachedEntry, for digest: CacheDigest) {
            guard maxEntries > 0 else { return }
            cache.set(entry, for: digest)
            if cache.count > maxEntries { _ = cache.removeOldest() }
        }
    }

    private let state: Locked<State>
    private let rules: HTTPCacheRules
    private let clock: FiberClock
    /// A reading of the clock and the wall-clock time it was taken at: freshness compares
    /// the clock's instants with `Date` headers. (Not the clock's zero: `.continuous`
    /// counts from its first use in the process, which may be long before this cache.)
    private let origin: (instant: Duration, date: Date)

    init(maxEntries: Int, rules: HTTPCacheRules, clock: FiberClock) {
        // Entries leave by LRU: freshness is judged at each lookup, not by an expiry here.
        self.state = Locked(State(maxEntries: max(0, maxEntries)))
        self.rules = rules
        self.clock = clock
        self.origin = (clock.now(), Date())
    }

    var count: Int { state.withLock { $0.cache.count } }

    /// The clock's current instant.
    func instant() -> Duration { clock.now() }

    func now() -> Date { date(at: clock.now()) }

    /// The wall-clock time of an instant of the clock.
    func date(at instant: Duration) -> Date { origin.date.addingTimeInterval((instant - origin.instant).seconds) }

    /// What the store holds for `key` that may answer `request`, judged at `instant`.
    func lookup(_ key: CacheKey, for request: FiberRequest, at instant: Duration) -> Lookup {
        judge(state.withLock { $0.cache.value(for: key.digest) }, key: key, for: request, at: instant)
    }

    /// Whether `entry`, found under `key`, may answer `request` at `instant`, and how.
    func judge(_ entry: CachedEntry?, key: CacheKey, for request: FiberRequest, at instant: Duration) -> Lookup {
        guard let entry, entry.key == key,
              HTTPCacheRules.varySnapshot(names: entry.varyNames, requestHeaders: request.headers) == entry.vary else {
            return .miss
        }
        let now = date(at: instant)
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
    /// `304`; returns the answer that replaces `response` (the stored one, for a
    /// `304`), or nil when the caller answers with `response` itself. (Returning
    /// `response` itself copied it: the compiler passed it borrowed.)
    /// `expiring`, when given, replaces the lifetime the response or the default gives.
    @inline(never)  // inlined into the async caller, its locals would be task allocations
    func record(_ response: FiberResponse, for key: consuming CacheKey, request: FiberRequest, requestTime: Date,
                validated: CachedEntry?, expiring: Date? = nil) -> FiberResponse? {
        let digest = key.digest
        switch decide(response, for: key, request: request, requestTime: requestTime, validated: validated, expiring: expiring) {
        case .store(let entry, let answer):
            state.withLock { $0.store(entry, for: digest) }
            return answer
        case .remove:
            state.withLock { _ = $0.cache.remove(digest) }
            return nil
        case .none:
            return nil
        }
    }

    /// What to do with a response to `request`, by the rules: store an entry (a new
    /// one, or `validated` refreshed by a `304`, which then answers in its place),
    /// remove the entry that was revalidated, or nothing.
    enum Decision {
        case store(CachedEntry, answer: FiberResponse?)
        case remove
        case none
    }

    /// The decision for `response`; `expiring`, when given, replaces the lifetime the response or the default gives.
    func decide(_ response: FiberResponse, for key: consuming CacheKey, request: FiberRequest, requestTime: Date,
                validated: CachedEntry?, expiring: Date?) -> Decision {
        let instant = clock.now()
        let responseTime = date(at: instant)
        if response.statusCode == 304, let validated {
            let headers = HTTPCacheRules.merging(validated.headers, with: response.headers)
            let entry = validated.refreshed(headers: headers, freshness: Self.freshness(rules.freshness(
                responseHeaders: headers, requestTime: requestTime, responseTime: responseTime), expiring: expiring))
            return .store(entry, answer: entry.answer(to: request, age: entry.freshness.age(at: responseTime))
                .withDuration(response.duration))
        }
        guard !response.isStreamed, response.isSuccess,
              let storage = rules.storage(method: request.httpMethod, statusCode: response.statusCode,
                                          requestHeaders: request.headers, responseHeaders: response.headers,
                                          requestTime: requestTime, responseTime: responseTime) else {
            return validated != nil ? .remove : .none
        }
        let vary = HTTPCacheRules.varySnapshot(names: storage.varyNames, requestHeaders: request.headers)
        return .store(CachedEntry(key: key, data: response.data, statusCode: response.statusCode, headers: response.headers,
                                  freshness: Self.freshness(storage.freshness, expiring: expiring), vary: vary,
                                  varyNames: storage.varyNames), answer: nil)
    }

    /// `freshness`, fresh until `expiring` instead when it is given (and not served stale after).
    static func freshness(_ freshness: CacheFreshness, expiring: Date?) -> CacheFreshness {
        guard let expiring else { return freshness }
        var changed = freshness
        changed.lifetime = max(0, freshness.initialAge + expiring.timeIntervalSince(freshness.responseTime))
        changed.staleWhileRevalidate = 0
        return changed
    }

    func clear() { state.withLock { $0.cache.removeAll() } }

    func evict(url: String) {
        state.withLock { state in
            _ = state.cache.removeAll { _, entry in Self.matches(entry.key.url, url) }
        }
    }

    /// True when `url` (a full URL, or a path with or without its query) names `entryURL`.
    static func matches(_ entryURL: String, _ url: String) -> Bool {
        guard let entryURL = URL(string: entryURL) else { return false }
        if entryURL.absoluteString == url { return true }
        let path = entryURL.path
        let pathAndQuery = entryURL.query.map { path + "?" + $0 } ?? path
        return url == path || url == pathAndQuery
    }
}

extension FiberResponse {
    /// The same response with another duration.
    func withDuration(_ duration: TimeInterval) -> FiberResponse {
        FiberResponse(data: data, statusCode: statusCode, headers: headers, request: request, duration: duration, traceID: traceID)
    }
}
