import Fiber
import FiberRuntime
import Foundation

/// The cache behind `SharedFiber.getCached` and `CachedResource`: an actor
/// with a memory tier (least recently used first out) and a storage tier
/// behind it: files in a directory by default (`DiskCacheStorage`), or any
/// `CacheStorage`, such as a SQLite file several processes share. `shared` is the process's store, used by every `SharedFiber` unless
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
/// The storage tier is awaited: operations on one key from concurrent callers
/// may interleave there, and the last write wins. A storage that fails is a
/// tier that misses.
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
    /// The directory of the disk tier (created on the first write); nil when the tier is another storage.
    public nonisolated let directory: URL?
    /// The storage tier.
    public nonisolated let storage: any CacheStorage

    private var memory = LRUMap<String, CacheEntry>()
    private var observers: [String: [Int: AsyncStream<Void>.Continuation]] = [:]
    private var nextObserver = 0

    /// A store whose disk tier lives in `directory`, within `diskLimits`, aging entries by `clock`.
    public init(directory: URL = SharedCacheStore.defaultDirectory, diskLimits: DiskCacheLimits = DiskCacheLimits(),
                clock: CacheClock = .system) {
        self.directory = directory
        self.clock = clock
        self.storage = DiskCacheStorage(directory: directory, limits: diskLimits)
    }

    /// A store whose second tier is `storage`, aging entries by `clock`. Entries
    /// whose policy keeps them on disk (`.disk`, `.memoryAndDisk`) go to `storage`.
    public init(storage: any CacheStorage, clock: CacheClock = .system) {
        self.directory = nil
        self.clock = clock
        self.storage = storage
    }

    // MARK: Values by key

    /// The value stored under `key`, fresh or not (check `isFresh`), from
    /// memory or else disk; nil when absent or when it does not decode as `T`.
    public func get<T: Decodable & Sendable>(_ key: String, as type: T.Type = T.self,
                                             decoder: JSONDecoder = JSONDecoder()) async -> CachedResponse<T>? {
        guard let (entry, source) = await entry(for: key) else { return nil }
        return try? entry.response(as: type, decoder: decoder, now: clock.now(), source: source)
    }

    /// Stores `value`, encoded as JSON, under `key` as if it had just arrived:
    /// fresh for `policy.ttl`, kept where `policy.storageMode` says. A policy
    /// that disables caching stores nothing (and drops what was there).
    /// Validators, when given, make later `getCached` calls conditional.
    public func set<T: Encodable>(_ key: String, value: T, policy: CachePolicy = .default, etag: String? = nil,
                                  lastModified: String? = nil, encoder: JSONEncoder = JSONEncoder()) async {
        guard !policy.disablesCaching, let body = try? encoder.encode(value) else {
            await invalidate(key)
            return
        }
        var headers: HTTPHeaders = ["Content-Type": "application/json"]
        if let etag { headers.append(name: "ETag", value: etag) }
        if let lastModified { headers.append(name: "Last-Modified", value: lastModified) }
        let freshness = CacheFreshness(responseTime: clock.now(), lifetime: policy.ttl,
                                       staleWhileRevalidate: policy.staleWhileRevalidate)
        await store(CacheEntry(key: key, body: body, headers: headers, freshness: freshness, storageMode: policy.storageMode),
                    maxEntries: policy.maxEntries)
    }

    /// Drops the entry under `key`, from memory and disk.
    public func invalidate(_ key: String) async {
        memory.remove(key)
        notify { $0 == key }
        try? await storage.removeRecord(forKey: key)
    }

    /// Drops every entry whose key satisfies `matches`, from memory and disk.
    public func invalidate(where matches: @escaping @Sendable (String) -> Bool) async {
        memory.removeAll { key, _ in matches(key) }
        notify(matches)
        try? await storage.removeRecords(where: matches)
    }

    /// Drops every entry whose key starts with `prefix` (`"GET:/users"`: `/users`, `/users/1`, `/users?page=2`).
    public func invalidateMatching(_ prefix: String) async {
        await invalidate { $0.hasPrefix(prefix) }
    }

    /// Drops every entry, from memory and disk.
    public func invalidateAll() async {
        memory = LRUMap()
        notify { _ in true }
        try? await storage.removeAll()
    }

    /// Removes every entry of the storage tier; the memory tier stays.
    public func clearDisk() async {
        try? await storage.removeAll()
    }

    /// The number of entries in memory.
    public var memoryCount: Int { memory.count }

    /// The number of entries in the storage tier (0 when it cannot be read).
    public var diskCount: Int {
        get async { (try? await storage.count()) ?? 0 }
    }

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
    func entry(for key: String) async -> (CacheEntry, CacheSource)? {
        if let entry = memory.value(for: key) { return (entry, .memory) }
        guard let record = try? await storage.record(forKey: key), record.key == key,
              let entry = CacheEntry(record: record) else { return nil }
        // Another call may have stored a newer entry in memory while the storage was read.
        if let newer = memory.value(for: key) { return (newer, .memory) }
        if entry.storageMode == .memoryAndDisk { memory.set(entry, for: key) }
        return (entry, .disk)
    }

    /// Stores `entry` in the tiers its mode names (never private ones on disk),
    /// then evicts down to `maxEntries` in each.
    func store(_ entry: CacheEntry, maxEntries: Int) async {
        if entry.storageMode != .disk {
            memory.set(entry, for: entry.key)
            memory.evict(toCount: maxEntries)
        } else {
            memory.remove(entry.key)
        }
        notify { $0 == entry.key }
        if entry.isPersistable {
            if let disk = storage as? DiskCacheStorage {
                // The policy's entry limit applies to the built-in disk tier as well.
                do { try await disk.store(entry.record, maxEntries: maxEntries) } catch { await removeStored(entry.key) }
            } else {
                do { try await storage.store(entry.record) } catch { await removeStored(entry.key) }
            }
        } else {
            await removeStored(entry.key)
        }
    }

    /// Removes `key` from the storage tier, so that an older version does not answer.
    private func removeStored(_ key: String) async {
        try? await storage.removeRecord(forKey: key)
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
