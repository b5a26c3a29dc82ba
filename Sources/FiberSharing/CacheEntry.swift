import Fiber
import FiberRuntime
import Foundation

/// One stored response: its body as received, the headers that matter for
/// caching, its freshness and where it may live. The unit both tiers keep;
/// `Codable` so that the disk tier can write it.
struct CacheEntry: Sendable, Codable, Equatable {
    /// Names this version of the entry: a new body or a revalidation gets a new one.
    var id = UUID()
    /// The cache key it is stored under (kept so that a file can be matched to its key).
    var key: String
    /// The body, as the server sent it (JSON for `getCached`).
    var body: Data
    /// The response's status code.
    var statusCode: Int
    /// The response's header fields (name, value), in order.
    var headerFields: [[String]]
    /// When it arrived, its initial age, lifetime and stale window.
    var freshness: CacheFreshness
    /// Where it may be kept.
    var storageMode: CachePolicy.StorageMode
    /// The request header values the response varies on (lowercased name → value, nil when absent).
    var vary: [String: String?]

    /// The response's headers.
    var headers: HTTPHeaders { HTTPHeaders(headerFields.compactMap { $0.count == 2 ? ($0[0], $0[1]) : nil }) }

    /// The `ETag` validator.
    var etag: String? { headers.first(name: "ETag") }
    /// The `Last-Modified` validator.
    var lastModified: String? { headers.first(name: "Last-Modified") }
    /// True when the response is for one user only (`Cache-Control: private`).
    var isPrivate: Bool { CacheControl(headers: headers).isPrivate }
    /// True when the entry may go to disk: its mode allows it and it is not private.
    var isPersistable: Bool { storageMode != .memory && !isPrivate }

    /// An entry made from its parts.
    init(key: String, body: Data, statusCode: Int = 200, headers: HTTPHeaders = [:], freshness: CacheFreshness,
         storageMode: CachePolicy.StorageMode, vary: [String: String?] = [:]) {
        self.key = key
        self.body = body
        self.statusCode = statusCode
        self.headerFields = headers.map { [$0.name, $0.value] }
        self.freshness = freshness
        self.storageMode = storageMode
        self.vary = vary
    }

    /// True when `requestHeaders` repeat the values this response varies on.
    func matches(_ requestHeaders: HTTPHeaders) -> Bool {
        vary.isEmpty || HTTPCacheRules.varySnapshot(names: Array(vary.keys), requestHeaders: requestHeaders) == vary
    }

    /// The entry decoded as `T` for a caller at `now`.
    ///
    /// - Throws: `FiberError.decodingError` when the body is not a `T`.
    func response<T: Decodable & Sendable>(as type: T.Type, decoder: JSONDecoder, now: Date,
                                           source: CacheSource) throws(FiberError) -> CachedResponse<T> {
        let value: T
        do {
            value = try decoder.decode(T.self, from: body)
        } catch {
            throw .decodingError(underlying: error, data: body)
        }
        return response(value: value, now: now, source: source)
    }

    /// The metadata of the entry around `value`, at `now`.
    func response<T: Sendable>(value: T, now: Date, source: CacheSource) -> CachedResponse<T> {
        let state = freshness.state(at: now)
        return CachedResponse(value: value, isFresh: state == .fresh, isStale: state == .stale,
                              age: freshness.age(at: now), etag: etag, lastModified: lastModified, source: source,
                              storedAt: freshness.responseTime)
    }
}

extension CacheEntry {
    /// The entry as a storage record: its version and storage mode in the attributes.
    var record: CacheRecord {
        CacheRecord(key: key, statusCode: statusCode, headers: headers, body: body, freshness: freshness, vary: vary,
                    attributes: ["id": id.uuidString, "storageMode": storageMode.rawValue])
    }

    /// The entry a record holds; nil when the record was not stored by a `SharedCacheStore`.
    init?(record: CacheRecord) {
        guard let mode = record.attributes["storageMode"].flatMap(CachePolicy.StorageMode.init(rawValue:)) else {
            return nil
        }
        self.init(key: record.key, body: record.body, statusCode: record.statusCode, headers: record.headers,
                  freshness: record.freshness, storageMode: mode, vary: record.vary)
        if let id = record.attributes["id"].flatMap(UUID.init(uuidString:)) { self.id = id }
    }
}
