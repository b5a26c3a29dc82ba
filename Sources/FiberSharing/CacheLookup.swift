import Fiber
import FiberRuntime
import Foundation

/// One `getCached` call: the key and headers it works with, the decision
/// between stored entry and network, and the network round itself.
struct CacheLookup: Sendable {
    let fiber: SharedFiber
    let client: Fiber
    let request: FiberRequest
    let key: String
    let policy: CachePolicy
    let rules: HTTPCacheRules
    /// The headers the request goes out with (its own, then the client's defaults): what `Vary` is matched against.
    let requestHeaders: HTTPHeaders

    /// The lookup of `path` and `query` under `policy`, with `fiber`'s current configuration and client.
    init(fiber: SharedFiber, path: String, query: [String: String], policy: CachePolicy) {
        let (configuration, client) = fiber.current
        self.fiber = fiber
        self.client = client
        self.policy = policy
        request = client.request(.get, path, query: query)
        var headers = request.headers
        for field in client.configuration.defaultHeaders where !headers.contains(name: field.name) {
            headers.append(name: field.name, value: field.value)
        }
        requestHeaders = headers
        let credential = [configuration.authToken ?? "", headers.first(name: "Authorization") ?? ""]
            .joined(separator: "\n")
        key = SharedCacheKey.key(primary: SharedCacheKey.primary(method: "GET", path: path, query: query),
                           baseURL: client.baseURL, credential: credential)
        rules = HTTPCacheRules(defaultLifetime: policy.ttl, defaultStaleWhileRevalidate: policy.staleWhileRevalidate)
    }

    private var store: SharedCacheStore { fiber.store }
    private var now: Date { store.clock.now() }
    private var decoder: JSONDecoder { client.configuration.decoder }

    /// Serves the call; `force` skips the stored entry's freshness (it is still used to revalidate).
    func run<T: Decodable & Sendable>(as type: T.Type, force: Bool) async throws -> CachedResponse<T> {
        try await runTracked(as: type, force: force).response
    }

    /// Serves the call, and says which version of the entry the response came from.
    func runTracked<T: Decodable & Sendable>(as type: T.Type, force: Bool) async throws
        -> (response: CachedResponse<T>, entryID: UUID) {
        if policy.disablesCaching {
            let outcome = try await fetch(validating: type, stored: nil, storing: false)
            return (try outcome.entry.response(as: type, decoder: decoder, now: now, source: .network), outcome.entry.id)
        }
        // A request that demands validation (`no-cache`) skips stored freshness, as `force` does.
        let force = force || rules.requestRequiresValidation(requestHeaders)
        if !force, let (entry, source) = await usableEntry() {
            switch entry.freshness.state(at: now) {
            case .fresh:
                return (try entry.response(as: type, decoder: decoder, now: now, source: source), entry.id)
            case .stale:
                let response = try entry.response(as: type, decoder: decoder, now: now, source: source)
                fiber.coalescer.startIfIdle(key) { try await self.refresh(validating: type, force: false) }
                return (response, entry.id)
            case .expired:
                break
            }
        }
        let outcome = try await fiber.coalescer.run(key) { try await self.refresh(validating: type, force: force) }
        return (try outcome.entry.response(as: type, decoder: decoder, now: now, source: outcome.source),
                outcome.entry.id)
    }

    /// The stored entry, if one matches the request's `Vary` headers.
    func usableEntry() async -> (CacheEntry, CacheSource)? {
        guard let (entry, source) = await store.entry(for: key), entry.matches(requestHeaders) else { return nil }
        return (entry, source)
    }

    /// The body of a flight: unless an entry turned fresh meanwhile (another
    /// flight just stored it), one request, conditional when the entry has validators.
    private func refresh<T: Decodable & Sendable>(validating type: T.Type, force: Bool) async throws -> FetchOutcome {
        let stored = await usableEntry()
        if !force, let (entry, source) = stored, entry.freshness.state(at: now) == .fresh {
            return FetchOutcome(entry: entry, source: source)
        }
        return try await fetch(validating: type, stored: stored?.0, storing: true)
    }

    /// One network round. A `304` to a conditional request refreshes `stored`;
    /// a 2xx whose body decodes as `T` is stored if the rules allow, else the old entry goes.
    private func fetch<T: Decodable & Sendable>(validating type: T.Type, stored: CacheEntry?,
                                                storing: Bool) async throws -> FetchOutcome {
        var outgoing = request
        if let stored {
            if let etag = stored.etag { outgoing = outgoing.header("If-None-Match", etag) }
            if let lastModified = stored.lastModified { outgoing = outgoing.header("If-Modified-Since", lastModified) }
        }
        let requestTime = now
        let response = try await Self.exchange(client, outgoing)
        let responseTime = now
        if response.statusCode == 304, let stored, stored.etag != nil || stored.lastModified != nil {
            var updated = stored
            updated.id = UUID()
            let headers = HTTPCacheRules.merging(stored.headers, with: response.headers)
            updated.headerFields = headers.map { [$0.name, $0.value] }
            updated.freshness = rules.freshness(responseHeaders: headers, requestTime: requestTime,
                                                responseTime: responseTime)
            await keep(updated, storing: storing, responseHeaders: headers)
            return FetchOutcome(entry: updated, source: .revalidated)
        }
        guard response.isSuccess else {
            throw FiberError.httpError(statusCode: response.statusCode, data: response.data, response: response)
        }
        let varyNames = HTTPCacheRules.varyNames(response.headers) ?? []
        let entry = CacheEntry(
            key: key, body: response.data, statusCode: response.statusCode, headers: response.headers,
            freshness: rules.freshness(responseHeaders: response.headers, requestTime: requestTime,
                                       responseTime: responseTime),
            storageMode: policy.storageMode,
            vary: HTTPCacheRules.varySnapshot(names: varyNames, requestHeaders: requestHeaders))
        _ = try entry.response(as: type, decoder: decoder, now: responseTime, source: .network)
        await keep(entry, storing: storing, responseHeaders: response.headers)
        return FetchOutcome(entry: entry, source: .network)
    }

    /// Stores `entry` when the rules allow it; otherwise drops what the key held.
    private func keep(_ entry: CacheEntry, storing: Bool, responseHeaders: HTTPHeaders) async {
        guard storing else { return }
        if rules.canStore(method: .get, statusCode: entry.statusCode, requestHeaders: requestHeaders,
                          responseHeaders: responseHeaders) {
            await store.store(entry, maxEntries: policy.maxEntries)
        } else {
            await store.invalidate(key)
        }
    }

    /// Sends `request`, returning the response even when the client's `validateStatus` rejects it.
    private static func exchange(_ client: Fiber, _ request: FiberRequest) async throws -> FiberResponse {
        do {
            return try await client.send(request)
        } catch FiberError.httpError(_, _, let response) {
            return response
        }
    }
}
