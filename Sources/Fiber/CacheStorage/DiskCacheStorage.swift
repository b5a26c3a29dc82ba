import Foundation

/// A `CacheStorage` of files: one per record in `directory`, written to a
/// temporary file, flushed and renamed into place, so a crash leaves the old
/// record or the new one, never half of one; each file carries a SHA-256 of its
/// bytes, and one that does not check out is a miss and is removed. Least
/// recently used records go first past `limits`.
///
/// An actor: file I/O runs on the global pool, never on the caller's event
/// loop. Two storages (or processes) may share a directory: each sees records
/// the other wrote, but each enforces the limits on what it has seen; use
/// `SQLiteCacheStorage` (FiberSQLite) where several processes share one cache.
public actor DiskCacheStorage: CacheStorage {
    /// The directory of the record files (created on the first write).
    public nonisolated let directory: URL
    /// The limits enforced on every write.
    public nonisolated let limits: DiskCacheLimits
    private var files: DiskRecordFiles

    /// A storage in `directory` within `limits`.
    public init(directory: URL, limits: DiskCacheLimits = DiskCacheLimits()) {
        self.directory = directory
        self.limits = limits
        self.files = DiskRecordFiles(directory: directory, limits: limits)
    }

    /// The record under `key`; nil when absent, unreadable or corrupt (a corrupt file is removed).
    public func record(forKey key: String) -> CacheRecord? { files.read(key) }

    /// Writes `record` atomically, then evicts past the limits. A record larger than
    /// `limits.maxEntryBytes` is not kept (and the older one under its key is removed).
    /// - Throws: `CacheStorageError` (`.io`) when the directory or file cannot be written.
    public func store(_ record: CacheRecord) throws(CacheStorageError) {
        try files.write(record, maxEntries: limits.maxEntries)
    }

    /// Writes `record`, keeping at most `maxEntries` records (and `limits`).
    /// - Throws: `CacheStorageError` (`.io`) when the directory or file cannot be written.
    package func store(_ record: CacheRecord, maxEntries: Int) throws(CacheStorageError) {
        try files.write(record, maxEntries: maxEntries)
    }

    /// Removes the file of `key`.
    public func removeRecord(forKey key: String) { files.remove(key) }

    /// Removes the files whose keys satisfy `matches`.
    public func removeRecords(where matches: @escaping @Sendable (String) -> Bool) { files.removeAll(where: matches) }

    /// Removes every record file and leftover temporary file.
    public func removeAll() { files.removeAll() }

    /// The number of record files (reads the directory the first time).
    public func count() -> Int { files.count() }

    /// The file name of `key`'s record: hex SHA-256 and `.entry`.
    public nonisolated static func fileName(for key: String) -> String { DiskRecordFiles.fileName(for: key) }
}
