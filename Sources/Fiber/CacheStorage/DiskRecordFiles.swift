import Crypto
import Fiber
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Limits of a `DiskCacheStorage` (the disk tier of a `SharedCacheStore`).
public struct DiskCacheLimits: Sendable, Hashable {
    /// The most entry files kept; the least recently used go first.
    public var maxEntries: Int
    /// The most bytes all entry files may take.
    public var maxBytes: Int
    /// Entries larger than this are not written to disk.
    public var maxEntryBytes: Int

    /// Limits as given; by default 1,000 entries, 50 MiB in all, 5 MiB each.
    public init(maxEntries: Int = 1_000, maxBytes: Int = 50 << 20, maxEntryBytes: Int = 5 << 20) {
        self.maxEntries = max(0, maxEntries)
        self.maxBytes = max(0, maxBytes)
        self.maxEntryBytes = max(0, min(maxEntryBytes, maxBytes))
    }
}

/// The files of a `DiskCacheStorage`: one per record in `directory`, named by the SHA-256 of
/// its key (a key never becomes a path), written to a temporary file, flushed
/// and renamed over the old one, so a crash leaves the old entry or the new
/// one, never half of one. A file that does not decode is a miss and is
/// removed; leftover temporary files are removed when the directory is first
/// read. An in-memory index (key → size, recency), built lazily from the
/// files' headers, enforces the limits.
///
/// A value owned by the `DiskCacheStorage` actor: it does blocking file I/O on
/// the actor's executor (the global pool, never a loop thread). Failures to
/// write are thrown; a file that cannot be read or decoded is a miss.
struct DiskRecordFiles {
    private struct IndexEntry: Sendable {
        var size: Int
    }

    let directory: URL
    let limits: DiskCacheLimits
    private var index = LRUMap<String, IndexEntry>()
    private var isIndexLoaded = false
    private var totalBytes = 0
    private let files = FileManager.default

    init(directory: URL, limits: DiskCacheLimits) {
        self.directory = directory
        self.limits = limits
    }

    /// The file name for `key`: hex SHA-256 and `.entry`.
    static func fileName(for key: String) -> String {
        SHA256.hash(data: Data(key.utf8)).lowercaseHex + ".entry"
    }

    private func url(for key: String) -> URL { directory.appendingPathComponent(Self.fileName(for: key)) }

    /// The number of entry files (reads the directory the first time).
    mutating func count() -> Int {
        loadIndexIfNeeded()
        return index.count
    }

    /// Every key on disk.
    mutating func keys() -> [String] {
        loadIndexIfNeeded()
        return index.keys
    }

    /// The entry under `key`; a missing, corrupt or foreign file is nil (and corrupt ones are removed).
    mutating func read(_ key: String) -> CacheRecord? {
        loadIndexIfNeeded()
        guard let data = try? Data(contentsOf: url(for: key)) else {
            forget(key)
            return nil
        }
        guard let entry = try? DiskRecordCodec.decode(data), entry.key == key else {
            remove(key)
            return nil
        }
        if index.value(for: key) == nil {
            // Written by another store on the same directory since the index was read.
            index.set(IndexEntry(size: data.count), for: key)
            totalBytes += data.count
        }
        return entry
    }

    /// Writes `entry` atomically, then evicts least recently used files until
    /// at most `min(limits.maxEntries, maxEntries)` files and `limits.maxBytes` remain.
    mutating func write(_ entry: CacheRecord, maxEntries: Int) throws(CacheStorageError) {
        loadIndexIfNeeded()
        let data: Data
        do { data = try DiskRecordCodec.encode(entry) } catch {
            remove(entry.key)
            throw CacheStorageError(.io, path: directory.path, detail: "record does not encode: \(error)")
        }
        guard data.count <= limits.maxEntryBytes else {
            remove(entry.key)  // too large to keep: the older version must not answer either
            return
        }
        do { try files.createDirectory(at: directory, withIntermediateDirectories: true) } catch {
            remove(entry.key)
            throw CacheStorageError(.io, path: directory.path, detail: "cannot create the directory: \(error)")
        }
        let temporary = directory.appendingPathComponent(".tmp-\(UUID().uuidString)")
        guard files.createFile(atPath: temporary.path, contents: data), Self.flush(temporary),
              rename(temporary.path, url(for: entry.key).path) == 0 else {
            let reason = String(cString: strerror(errno))
            try? files.removeItem(at: temporary)
            remove(entry.key)
            throw CacheStorageError(.io, path: directory.path, detail: "cannot write a record file: \(reason)")
        }
        forget(entry.key)
        index.set(IndexEntry(size: data.count), for: entry.key)
        totalBytes += data.count
        let entryLimit = min(limits.maxEntries, maxEntries)
        while index.count > entryLimit || totalBytes > limits.maxBytes, let oldest = index.removeOldest() {
            totalBytes -= oldest.value.size
            try? files.removeItem(at: url(for: oldest.key))
        }
    }

    /// Removes the file of `key`.
    mutating func remove(_ key: String) {
        try? files.removeItem(at: url(for: key))
        forget(key)
    }

    /// Removes the files whose keys satisfy `matches`.
    mutating func removeAll(where matches: (String) -> Bool) {
        loadIndexIfNeeded()
        for key in index.keys where matches(key) { remove(key) }
    }

    /// Removes every entry file and leftover temporary file of the directory.
    mutating func removeAll() {
        for name in (try? files.contentsOfDirectory(atPath: directory.path)) ?? []
        where name.hasSuffix(".entry") || name.hasPrefix(".tmp-") {
            try? files.removeItem(at: directory.appendingPathComponent(name))
        }
        index = LRUMap()
        totalBytes = 0
        isIndexLoaded = true
    }

    private mutating func forget(_ key: String) {
        if let old = index.remove(key) { totalBytes -= old.size }
    }

    /// Reads the index from the files' headers the first time: oldest modification first.
    private mutating func loadIndexIfNeeded() {
        guard !isIndexLoaded else { return }
        isIndexLoaded = true
        var found: [(key: String, size: Int, modified: Date)] = []
        for name in (try? files.contentsOfDirectory(atPath: directory.path)) ?? [] {
            let file = directory.appendingPathComponent(name)
            if name.hasPrefix(".tmp-") {
                try? files.removeItem(at: file)
                continue
            }
            guard name.hasSuffix(".entry") else { continue }
            let attributes = try? files.attributesOfItem(atPath: file.path)
            guard let key = Self.readKey(file), Self.fileName(for: key) == name,
                  let size = (attributes?[.size] as? NSNumber)?.intValue else {
                try? files.removeItem(at: file)
                continue
            }
            found.append((key, size, attributes?[.modificationDate] as? Date ?? .distantPast))
        }
        for file in found.sorted(by: { $0.modified < $1.modified }) {
            index.set(IndexEntry(size: file.size), for: file.key)
            totalBytes += file.size
        }
    }

    /// The key in a file's header, reading only the prefix and the header.
    private static func readKey(_ file: URL) -> String? {
        guard let handle = try? FileHandle(forReadingFrom: file) else { return nil }
        defer { try? handle.close() }
        guard let prefix = try? handle.read(upToCount: DiskRecordCodec.fixedPrefixLength),
              let length = try? DiskRecordCodec.headerLength(prefix), length <= 1 << 20,
              let header = try? handle.read(upToCount: length), header.count == length else { return nil }
        return try? DiskRecordCodec.key(inHeader: header)
    }

    /// Writes the file's data through to the device (fsync) so that the rename publishes complete bytes.
    private static func flush(_ file: URL) -> Bool {
        guard let handle = try? FileHandle(forWritingTo: file) else { return false }
        defer { try? handle.close() }
        return (try? handle.synchronize()) != nil
    }
}
