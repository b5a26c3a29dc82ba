/// Where a cache keeps its responses: memory (`MemoryCacheStorage`), one file
/// per response in a directory (`DiskCacheStorage`), a SQLite database shared by
/// several processes (`SQLiteCacheStorage` in `FiberSQLite`), or your own.
///
/// A storage only stores: it keeps `CacheRecord`s by key, gives them back
/// unchanged, and evicts by its own limits (least recently used first). What
/// may be stored, for how long, and what may answer a request is decided by
/// the cache above it (`CacheInterceptor`, `SharedCacheStore`), once for every
/// storage.
///
/// Methods may be called from many tasks at once. A storage that blocks on
/// I/O must not block the caller's executor (an event loop, for
/// `CacheInterceptor`): run the I/O on an actor of its own, as the built-in
/// ones do. Caches treat a thrown error as a miss (on reads) or as nothing
/// stored (on writes): a failing storage slows requests down but never fails them.
public protocol CacheStorage: Sendable {
    /// The record stored under `key`, or nil.
    /// - Throws: `CacheStorageError` when the storage cannot be read.
    func record(forKey key: String) async throws(CacheStorageError) -> CacheRecord?

    /// Stores `record` under its key, replacing what was there, then evicts down to the storage's limits.
    /// - Throws: `CacheStorageError` when it cannot be written (nothing is then stored under the key).
    func store(_ record: CacheRecord) async throws(CacheStorageError)

    /// Removes the record under `key`, if any.
    /// - Throws: `CacheStorageError` when the storage cannot be written.
    func removeRecord(forKey key: String) async throws(CacheStorageError)

    /// Removes every record whose key satisfies `matches`.
    /// - Throws: `CacheStorageError` when the storage cannot be read or written.
    func removeRecords(where matches: @escaping @Sendable (String) -> Bool) async throws(CacheStorageError)

    /// Removes every record.
    /// - Throws: `CacheStorageError` when the storage cannot be written.
    func removeAll() async throws(CacheStorageError)

    /// The number of records stored.
    /// - Throws: `CacheStorageError` when the storage cannot be read.
    func count() async throws(CacheStorageError) -> Int
}
