import Fiber
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A `CacheStorage` in one SQLite file, which several processes of a service
/// on one machine may share: a response one process stored answers the
/// others. Write-ahead logging lets readers and a writer work at once;
/// a process that finds the file locked waits up to `busyTimeout`.
///
/// ```swift
/// let storage = try SQLiteCacheStorage(path: "/var/cache/my-service/http.sqlite")
/// let fiber = Fiber("https://api.example.com") {
///     $0.interceptors = [CacheInterceptor(storage: storage)]
/// }
/// ```
///
/// Records are kept with a SHA-256 of their bytes; a row that does not check
/// out is a miss and is deleted. A file that is not a SQLite database, or is
/// damaged, is moved aside (`<path>.corrupt-<time>`) and a fresh database
/// takes its place (`recoveredFrom` tells what was found), unless
/// `onCorruption` is `.fail`. A database of another application is never
/// touched. The file is created with mode 0600: responses may be private.
///
/// An actor: SQLite's blocking calls run on the global pool, never on the
/// caller's event loop. Least recently used records go first past
/// `maxEntries` or `maxBytes`, counted over the whole file.
public actor SQLiteCacheStorage: CacheStorage {
    /// What to do with a file that is not a sound database.
    public enum CorruptionPolicy: Sendable {
        /// Move it aside and start an empty database (the default: a cache can be rebuilt).
        case startFresh
        /// Throw `CacheStorageError` with kind `.corrupt`.
        case fail
    }

    /// The database file.
    public nonisolated let path: String
    /// The most records kept.
    public nonisolated let maxEntries: Int
    /// The most bytes of records kept.
    public nonisolated let maxBytes: Int
    /// The error found when the file was opened, when it was corrupt and was replaced by a fresh one.
    public nonisolated let recoveredFrom: CacheStorageError?

    private var connection: SQLiteConnection
    private let busyTimeout: Duration
    private let onCorruption: CorruptionPolicy

    /// `FBRC`: marks the file as this storage's, so that another application's database is refused.
    static let applicationID: Int64 = 0x4642_5243

    /// Opens or creates the database at `path`. Call it at startup: opening does blocking I/O.
    ///
    /// - Parameters:
    ///   - path: the database file, created (mode 0600) when missing.
    ///   - maxEntries: records kept, at least 1 (default 10,000).
    ///   - maxBytes: bytes of records kept, at least 1 (default 256 MiB).
    ///   - busyTimeout: how long to wait for another process's lock before `.busy`.
    ///   - onCorruption: whether a corrupt file is replaced (default) or reported.
    /// - Throws: `CacheStorageError`: `.invalidConfiguration` for limits below 1 or a
    ///   database of another application; `.io` when the file cannot be opened or
    ///   created; `.corrupt` with `onCorruption: .fail`.
    public init(path: String, maxEntries: Int = 10_000, maxBytes: Int = 256 << 20, busyTimeout: Duration = .seconds(5),
                onCorruption: CorruptionPolicy = .startFresh) throws(CacheStorageError) {
        guard maxEntries >= 1, maxBytes >= 1 else {
            throw CacheStorageError(.invalidConfiguration, path: path,
                                    detail: "maxEntries (\(maxEntries)) and maxBytes (\(maxBytes)) must be at least 1")
        }
        self.path = path
        self.maxEntries = maxEntries
        self.maxBytes = maxBytes
        self.busyTimeout = busyTimeout
        self.onCorruption = onCorruption
        do {
            connection = try Self.open(path, busyTimeout: busyTimeout)
            recoveredFrom = nil
        } catch where error.kind == .corrupt && onCorruption == .startFresh {
            Self.moveAside(path)
            connection = try Self.open(path, busyTimeout: busyTimeout)
            recoveredFrom = error
        }
    }

    /// The record under `key`, now the most recently used; nil when absent or when its row is damaged (then deleted).
    /// - Throws: `CacheStorageError` when the database cannot be read.
    public func record(forKey key: String) throws(CacheStorageError) -> CacheRecord? {
        try guarded { () throws(CacheStorageError) -> CacheRecord? in
            let rows = try connection.query("SELECT record FROM fiber_cache WHERE key = ?", [.text(key)], columns: [.blob])
            guard case .blob(let bytes)? = rows.first?.first else { return nil }
            guard let record = try? DiskRecordCodec.decode(bytes), record.key == key else {
                try connection.query("DELETE FROM fiber_cache WHERE key = ?", [.text(key)])
                return nil
            }
            // Recency to the second is enough for eviction, and spares most hits a write.
            let now = Self.now()
            try connection.query("UPDATE fiber_cache SET used = ? WHERE key = ? AND used < ?",
                                 [.real(now), .text(key), .real(now - 1)])
            return record
        }
    }

    /// Stores `record` and evicts the least recently used past the limits, in one transaction.
    /// A record larger than `maxBytes` is not kept (the older one under its key is removed).
    /// - Throws: `CacheStorageError` when the database cannot be written.
    public func store(_ record: CacheRecord) throws(CacheStorageError) {
        let bytes: Data
        do { bytes = try DiskRecordCodec.encode(record) } catch {
            throw CacheStorageError(.io, path: path, detail: "record does not encode: \(error)")
        }
        try guarded { () throws(CacheStorageError) in
            try transaction { () throws(CacheStorageError) in
                guard bytes.count <= maxBytes else {
                    try connection.query("DELETE FROM fiber_cache WHERE key = ?", [.text(record.key)])
                    return
                }
                // Not INSERT OR REPLACE: the row a replace deletes would not reach the totals' trigger.
                try connection.query("DELETE FROM fiber_cache WHERE key = ?", [.text(record.key)])
                try connection.query("INSERT INTO fiber_cache (key, record, size, used) VALUES (?, ?, ?, ?)",
                                     [.text(record.key), .blob(bytes), .integer(Int64(bytes.count)), .real(Self.now())])
                let (count, size) = try totals()
                guard count > maxEntries || size > maxBytes else { return }
                // Down to nine tenths of a large limit at once, so that a full cache sorts its
                // index once every many writes rather than on each.
                try connection.query("""
                    DELETE FROM fiber_cache WHERE rowid IN (
                        SELECT rowid FROM (SELECT rowid, row_number() OVER newest AS position, sum(size) OVER newest AS running
                                           FROM fiber_cache WINDOW newest AS (ORDER BY used DESC))
                        WHERE position > ? OR running > ?)
                    """, [.integer(Int64(maxEntries - maxEntries / 10)), .integer(Int64(maxBytes - maxBytes / 10))])
            }
        }
    }

    /// Removes the record under `key`.
    /// - Throws: `CacheStorageError` when the database cannot be written.
    public func removeRecord(forKey key: String) throws(CacheStorageError) {
        try guarded { () throws(CacheStorageError) in
            try connection.query("DELETE FROM fiber_cache WHERE key = ?", [.text(key)])
        }
    }

    /// Removes the records whose keys satisfy `matches`, in one transaction.
    /// - Throws: `CacheStorageError` when the database cannot be read or written.
    public func removeRecords(where matches: @escaping @Sendable (String) -> Bool) throws(CacheStorageError) {
        try guarded { () throws(CacheStorageError) in
            try transaction { () throws(CacheStorageError) in
                let rows = try connection.query("SELECT key FROM fiber_cache", columns: [.text])
                for row in rows {
                    guard case .text(let key)? = row.first, matches(key) else { continue }
                    try connection.query("DELETE FROM fiber_cache WHERE key = ?", [.text(key)])
                }
            }
        }
    }

    /// Removes every record.
    /// - Throws: `CacheStorageError` when the database cannot be written.
    public func removeAll() throws(CacheStorageError) {
        try guarded { () throws(CacheStorageError) in try connection.execute("DELETE FROM fiber_cache") }
    }

    /// The number of records in the file (all processes' together).
    /// - Throws: `CacheStorageError` when the database cannot be read.
    public func count() throws(CacheStorageError) -> Int {
        try guarded { () throws(CacheStorageError) -> Int in try totals().count }
    }

    /// Records and bytes in the file, kept by triggers in the same transactions as the rows.
    private func totals() throws(CacheStorageError) -> (count: Int, bytes: Int) {
        let rows = try connection.query("SELECT entries, bytes FROM fiber_cache_totals WHERE id = 0", columns: [.integer, .integer])
        guard case .integer(let count)? = rows.first?.first, case .integer(let bytes)? = rows.first?.last else {
            throw CacheStorageError(.corrupt, path: path, detail: "the totals row is missing")
        }
        return (Int(count), Int(bytes))
    }

    // MARK: Opening and recovery

    /// Opens the file, checks it is this storage's (or empty), and makes the table.
    private static func open(_ path: String, busyTimeout: Duration) throws(CacheStorageError) -> SQLiteConnection {
        let existed = FileManager.default.fileExists(atPath: path)
        let connection = try SQLiteConnection(path: path, busyTimeout: busyTimeout)
        if !existed { chmod(path, 0o600) }
        // The check, the mark and the schema in one write transaction: a process that opens
        // a new file at the same moment waits for it, then finds the file marked and made
        // (checked apart, it could read the mark before another's and the tables after).
        // Nothing is written to a database of another application.
        try connection.execute("BEGIN IMMEDIATE")
        do throws(CacheStorageError) {
            let id = try connection.query("PRAGMA application_id", columns: [.integer])
            let tables = try connection.query("SELECT count(*) FROM sqlite_master", columns: [.integer])
            if case .integer(let found)? = id.first?.first, found != applicationID {
                if case .integer(let count)? = tables.first?.first, count > 0 {
                    throw CacheStorageError(.invalidConfiguration, path: path,
                                            detail: "the file is another application's SQLite database; not touching it")
                }
                try connection.execute("PRAGMA application_id = \(applicationID)")
            }
            try connection.execute("""
                CREATE TABLE IF NOT EXISTS fiber_cache (
                    key TEXT PRIMARY KEY NOT NULL, record BLOB NOT NULL, size INTEGER NOT NULL, used REAL NOT NULL);
                CREATE INDEX IF NOT EXISTS fiber_cache_used ON fiber_cache (used, size);
                CREATE TABLE IF NOT EXISTS fiber_cache_totals (
                    id INTEGER PRIMARY KEY CHECK (id = 0), entries INTEGER NOT NULL, bytes INTEGER NOT NULL);
                INSERT OR IGNORE INTO fiber_cache_totals VALUES (0, 0, 0);
                CREATE TRIGGER IF NOT EXISTS fiber_cache_added AFTER INSERT ON fiber_cache BEGIN
                    UPDATE fiber_cache_totals SET entries = entries + 1, bytes = bytes + NEW.size WHERE id = 0; END;
                CREATE TRIGGER IF NOT EXISTS fiber_cache_removed AFTER DELETE ON fiber_cache BEGIN
                    UPDATE fiber_cache_totals SET entries = entries - 1, bytes = bytes - OLD.size WHERE id = 0; END;
                COMMIT;
                """)
        } catch {
            try? connection.execute("ROLLBACK")
            throw error
        }
        // Outside the transaction (SQLite refuses to change it inside one), on a file now known to be ours.
        try connection.query("PRAGMA journal_mode = WAL", columns: [.text])
        try connection.execute("PRAGMA synchronous = NORMAL")
        return connection
    }

    /// Moves a corrupt database and its journal files out of the way.
    private static func moveAside(_ path: String) {
        let stamp = Int(Date().timeIntervalSince1970)
        rename(path, "\(path).corrupt-\(stamp)")
        unlink(path + "-wal")
        unlink(path + "-shm")
    }

    /// Runs `body`; when the database turns out corrupt, replaces it (unless told not to) and rethrows.
    @discardableResult
    private func guarded<T>(_ body: () throws(CacheStorageError) -> T) throws(CacheStorageError) -> T {
        do {
            return try body()
        } catch where error.kind == .corrupt && onCorruption == .startFresh {
            connection.close()
            Self.moveAside(path)
            if let fresh = try? Self.open(path, busyTimeout: busyTimeout) { connection = fresh }
            throw error
        }
    }

    /// Runs `body` in a write transaction, rolled back if it throws.
    private func transaction(_ body: () throws(CacheStorageError) -> Void) throws(CacheStorageError) {
        try connection.execute("BEGIN IMMEDIATE")
        do {
            try body()
            try connection.execute("COMMIT")
        } catch {
            try? connection.execute("ROLLBACK")
            throw error
        }
    }

    private static func now() -> Double { Date().timeIntervalSince1970 }
}
