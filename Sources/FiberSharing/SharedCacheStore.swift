import Fiber
import FiberRuntime
import Foundation

/// The cache behind `SharedFiber.getCached` and `CachedResource`: an actor
/// with a memory tier (least recently used first out) and a disk tier behind
/// it. `shared` is the process's store, used by every `SharedFiber` unless
/// given another; a store of your own has its own directory.
///
/// ```swift
/// let store = SharedCacheStore.shared
/// let cached: CachedResponse<[User]>? = await store.get("GET:/users", as: [User].self)
/// await store.set("GET:/users", value: users, policy: .default)
/// await store.invalidateAll()
/// await store.clearDisk()
/// let count = await store.memoryCount
/// ```
///
/// Keys are opaque strings. Those made by `SharedFiber` read
/// `GET:/path?query` followed by a space and a scope (see `SharedFiber.cacheKey`),
/// so `invalidateMatching("GET:/users")` reaches all of them.
///
/// Disk I/O runs synchronously on the actor (off every event loop), so that
/// no operation interleaves with another; see `DiskCache` for the file format
/// and its crash safety.
public actor SharedCacheStore {
    /// The process-wide store, in `defaultDirectory`.
    public static let shared = SharedCacheStore()

    /// `$XDG_CACHE_HOME/fiber-sharing`, else `~/.cache/fiber-sharing`.
    public static var defaultDirectory: URL {
        let environment = ProcessInfo.processInfo.environment
        let base = environment["XDG_CACHE_HOME"].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0) }
            ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".cache")
        return base.appendingPathComponent("fiber-sharing")
    }

    /// The clock that entries are aged by.
    public nonisolated let clock: CacheClock
    /// The directory of the disk tier (created on the first write).
    public nonisolated let directory: URL

    private var memory = LRUMap<String, CacheEntry>()
    private var disk: DiskCache
    private var observers: [String: [Int: AsyncStream<Void>.Continuation]] = [:]
    private var nextObserver = 0

    /// A store whose disk tier lives in `directory`, within `diskLimits`, aging entries by `clock`.
    public init(directory: URL = SharedCacheStore.defaultDirectory, diskLimits: DiskCacheLimits = DiskCacheLimits(),
                clock: CacheClock = .system) {
        self.directory = directory
        self.clock = clock
        self.disk = DiskCache(directory: directory, limits: diskLimits)
    }

    // MARK: Values by key

    /// The value stored under `key`, fresh or not (check `isFresh`), from
    /// memory or else disk; nil when absent or when it does not decode as `T`.
    public func get<T: Decodable & Sendable>(_ key: String, as type: T.Type = T.self,
                                             decoder: JSONDecoder = JSONDecoder()) -> CachedResponse<T>? {
        guard let (entry, source) = entry(for: key) else { return nil }
        return try? entry.response(as: type, decoder: decoder, now: clock.now(), source: source)
    }

    /// Stores `value`, encoded as JSON, under `key` as if it had just arrived:
    /// fresh for `policy.ttl`, kept where `policy.storageMode` says. A policy
    /// that disables caching stores nothing (and drops what was there).
    /// Validators, when given, make later `getCached` calls conditional.
    public func set<T: Encodable>(_ key: String, value: T, policy: CachePolicy = .default, etag: String? = nil,
                                  lastModified: String? = nil, encoder: JSONEncoder = JSONEncoder()) {
        guard !policy.disablesCaching, let body = try? encoder.encode(value) else {
            invalidate(key)
            return
        }
        var headers: HTTPHeaders = ["Content-Type": "application/json"]
        if let etag { headers.append(name: "ETag", value: etag) }
        if let lastModified { headers.append(name: "Last-Modified", value: lastModified) }
        let freshness = CacheFreshness(responseTime: clock.now(), lifetime: policy.ttl,
                                       staleWhileRevalidate: policy.staleWhileRevalidate)
        store(CacheEntry(key: key, body: body, headers: headers, freshness: freshness, storageMode: policy.storageMode),
              maxEntries: policy.maxEntries)
    }

    /// Drops the entry under `key`, from memory and disk.
    public func invalidate(_ key: String) {
        memory.remove(key)
        disk.remove(key)
        notify { $0 == key }
    }

    /// Drops every entry whose key satisfies `matches`, from memory and disk.
    public func invalidate(where matches: (String) -> Bool) {
        memory.removeAll { key, _ in matches(key) }
        disk.removeAll(where: matches)
        notify(matches)
    }

    /// Drops every entry whose key starts with `prefix` (`"GET:/users"`: `/users`, `/users/1`, `/users?page=2`).
    public func invalidateMatching(_ prefix: String) {
        invalidate { $0.hasPrefix(prefix) }
    }

    /// Drops every entry, from memory and disk.
    public func invalidateAll() {
        memory = LRUMap()
        disk.removeAll()
        notify { _ in true }
    }

    /// Removes every file of the disk tier; the memory tier stays.
    public func clearDisk() {
        disk.removeAll()
    }

    /// The number of entries in memory.
    public var memoryCount: Int { memory.count }

    /// The number of entries on disk (reads the directory the first time).
    public var diskCount: Int { disk.count() }

    /// One element each time the entry under `key` is stored, revalidated or
    /// invalidated; ends when the consumer stops iterating.
    public func changes(for key: String) -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        nextObserver += 1
        let id = nextObserver
        observers[key, default: [:]][id] = continuation
        continuation.onTermination = { [weak self] _ in
            Task { await self?.removeObserver(key, id) }
        }
        return stream
    }

    // MARK: Used by SharedFiber

    /// The entry under `key` and the tier it came from: memory, else disk
    /// (promoted to memory when its mode keeps it in both).
    func entry(for key: String) -> (CacheEntry, CacheSource)? {
        if let entry = memory.value(for: key) { return (entry, .memory) }
        guard let entry = disk.read(key) else { return nil }
        if entry.storageMode == .memoryAndDisk { memory.set(entry, for: key) }
        return (entry, .disk)
    }

    /// Stores `entry` in the tiers its mode names (never private ones on disk),
    /// then evicts down to `maxEntries` in each.
    func store(_ entry: CacheEntry, maxEntries: Int) {
        if entry.storageMode != .disk {
            memory.set(entry, for: entry.key)
            memory.evict(toCount: maxEntries)
        } else {
            memory.remove(entry.key)
        }
        if entry.isPersistable {
            disk.write(entry, maxEntries: maxEntries)
        } else {
            disk.remove(entry.key)
        }
        notify { $0 == entry.key }
    }

    private func notify(_ matches: (String) -> Bool) {
        for (key, continuations) in observers where matches(key) {
            for continuation in continuations.values { continuation.yield() }
        }
    }

    private func removeObserver(_ key: String, _ id: Int) {
        observers[key]?[id] = nil
        if observers[key]?.isEmpty == true { observers[key] = nil }
    }
}
