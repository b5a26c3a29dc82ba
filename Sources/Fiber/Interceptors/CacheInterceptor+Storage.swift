import Crypto
import FiberRuntime
import Foundation

extension CacheInterceptor {
    /// The cache over a `CacheStorage`: the same rules as the memory path, with
    /// reads and writes awaited. A storage error is a miss, or nothing stored.
    nonisolated(nonsending) func run(_ request: FiberRequest, in storage: any CacheStorage,
                                     next: InlineNext) async throws -> FiberResponse {
        let key = Self.key(for: request)
        let storageKey = CacheStorageKey.make(for: key)
        let instant = store.instant()
        let found = try? await storage.record(forKey: storageKey)
        let entry = found.flatMap { $0.key == storageKey ? CachedEntry(record: $0, key: key) : nil }
        if let policy = request.overrides?.cachePolicy, !policy.useCache || !policy.storeCache {
            if policy.useCache, case .fresh(let entry, let age) = store.judge(entry, key: key, for: request, at: instant) {
                return entry.answer(to: request, age: age)
            }
            let response = try await next(request)
            guard policy.storeCache else { return response }
            return await fetched(response, key, storageKey, request: request, requestTime: store.date(at: instant),
                                 validated: nil, in: storage)
        }
        switch store.judge(entry, key: key, for: request, at: instant) {
        case .fresh(let entry, let age):
            return entry.answer(to: request, age: age)
        case .stale(let entry, let age):
            refreshes.startIfIdle(key.digest) {
                let requestTime = self.store.now()
                guard let response = try? await next(entry.conditional(request)) else { return }
                _ = await self.fetched(response, key, storageKey, request: request, requestTime: requestTime,
                                       validated: entry, in: storage)
            }
            return entry.answer(to: request, age: age)
        case .expired(let entry):
            let requestTime = store.date(at: instant)
            let response = try await next(entry.conditional(request))
            return await fetched(response, key, storageKey, request: request, requestTime: requestTime,
                                 validated: entry, in: storage)
        case .miss:
            let requestTime = store.date(at: instant)
            let response = try await next(request)
            return await fetched(response, key, storageKey, request: request, requestTime: requestTime,
                                 validated: nil, in: storage)
        }
    }

    /// Stores what the rules say of `response` and returns the answer.
    nonisolated(nonsending) private func fetched(_ response: FiberResponse, _ key: CacheKey, _ storageKey: String,
                                                 request: FiberRequest, requestTime: Date, validated: CachedEntry?,
                                                 in storage: any CacheStorage) async -> FiberResponse {
        switch store.decide(response, for: key, request: request, requestTime: requestTime, validated: validated,
                            expiring: request.overrides?.cachePolicy?.expireTime) {
        case .store(let entry, let answer):
            try? await storage.store(entry.record(storageKey: storageKey))
            return answer ?? response
        case .remove:
            try? await storage.removeRecord(forKey: storageKey)
            return response
        case .none:
            return response
        }
    }
}

/// The keys `CacheInterceptor` stores under: `METHOD URL`, then, for a request
/// with `Authorization`, a space and `auth:` with the value's SHA-256 in hex.
enum CacheStorageKey {
    static func make(for key: CacheKey) -> String {
        let base = key.method.rawValue + " " + key.url
        guard let authorization = key.authorization else { return base }
        let digest = SHA256.hash(data: Data(authorization.utf8)).lowercaseHex
        return base + " auth:" + digest
    }

    /// The URL in a key made by `make(for:)`.
    static func url(in key: String) -> String? {
        let parts = key.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        return parts.count >= 2 ? String(parts[1]) : nil
    }
}

extension CachedEntry {
    /// The entry a record holds, under the key of the request that found it.
    convenience init(record: CacheRecord, key: CacheKey) {
        self.init(key: key, data: record.body, statusCode: record.statusCode, headers: record.headers,
                  freshness: record.freshness, vary: record.vary, varyNames: record.vary.keys.sorted())
    }

    /// The entry as a record under `storageKey`.
    func record(storageKey: String) -> CacheRecord {
        CacheRecord(key: storageKey, statusCode: statusCode, headers: headers, body: data, freshness: freshness, vary: vary)
    }
}
