import Fiber
import FiberRuntime
import FiberSQLite
import FiberTesting
import Foundation
import Testing

/// What is particular to the SQLite storage: bad files, bad configuration,
/// permissions, damaged rows, and a file several storages share.
@Suite struct SQLiteStorageTests {
    let record = CacheRecord(key: "GET https://example.test/", statusCode: 200, headers: ["ETag": "\"1\""],
                             body: Data("hello".utf8), freshness: CacheFreshness(responseTime: Date(), lifetime: 60))

    /// A file of garbage is moved aside and a fresh database starts, with the error reported.
    @Test func aFileThatIsNotADatabaseStartsFresh() async throws {
        let scratch = Scratch()
        let path = scratch.path("cache.sqlite")
        try Data(repeating: 0x5a, count: 8192).write(to: URL(fileURLWithPath: path))
        let storage = try SQLiteCacheStorage(path: path)
        #expect(storage.recoveredFrom?.kind == .corrupt)
        try await storage.store(record)
        #expect(try await storage.record(forKey: record.key) == record)
        let names = try FileManager.default.contentsOfDirectory(atPath: scratch.url.path)
        #expect(names.contains { $0.hasPrefix("cache.sqlite.corrupt-") }, "the damaged file is kept aside: \(names)")
    }

    /// With `.fail`, the same file is a typed error and is left as it was.
    @Test func corruptionCanBeReportedInstead() throws {
        let scratch = Scratch()
        let path = scratch.path("cache.sqlite")
        let garbage = Data(repeating: 0x5a, count: 8192)
        try garbage.write(to: URL(fileURLWithPath: path))
        #expect {
            try SQLiteCacheStorage(path: path, onCorruption: .fail)
        } throws: { ($0 as? CacheStorageError)?.kind == .corrupt }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == garbage)
    }

    /// A database whose pages are damaged after it was written: operations throw a typed
    /// error (or miss), never crash, and the storage works again afterwards.
    @Test func damagedPagesAreATypedErrorThenAFreshStart() async throws {
        let scratch = Scratch()
        let path = scratch.path("cache.sqlite")
        do {
            let storage = try SQLiteCacheStorage(path: path)
            for index in 0..<200 {
                var filler = record
                filler.key = "GET /filler/\(index)"
                filler.body = Data(repeating: UInt8(index & 0xff), count: 2_000)
                try await storage.store(filler)
            }
        }
        try await checkpoint(path)
        // Overwrite everything past the first page (the header stays valid).
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(bytes.count > 64 * 1024)
        for offset in stride(from: 4096, to: bytes.count, by: 1) { bytes[offset] = UInt8(truncatingIfNeeded: offset &* 31) }
        try bytes.write(to: URL(fileURLWithPath: path))

        let storage = try SQLiteCacheStorage(path: path)
        var found: CacheStorageError.Kind?
        do throws(CacheStorageError) {
            for index in 0..<200 { _ = try await storage.record(forKey: "GET /filler/\(index)") }
            _ = try await storage.count()
        } catch {
            found = error.kind
        }
        #expect(found == .corrupt || storage.recoveredFrom?.kind == .corrupt, "damage must be noticed")
        // Whatever was found, the storage is usable again.
        try await storage.store(record)
        #expect(try await storage.record(forKey: record.key) == record)
    }

    /// A row whose bytes were altered behind the storage's back is a miss and is deleted.
    @Test func aDamagedRowIsAMiss() async throws {
        let scratch = Scratch()
        let path = scratch.path("cache.sqlite")
        let storage = try SQLiteCacheStorage(path: path)
        try await storage.store(record)
        try await sqlite(path, "UPDATE fiber_cache SET record = X'464253430200000000' WHERE key = '\(record.key)'")
        #expect(try await storage.record(forKey: record.key) == nil)
        #expect(try await storage.count() == 0)
    }

    @Test func anotherApplicationsDatabaseIsNeverTouched() async throws {
        let scratch = Scratch()
        let path = scratch.path("app.sqlite")
        try await sqlite(path, "CREATE TABLE orders (id INTEGER PRIMARY KEY); INSERT INTO orders VALUES (1);")
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect {
            try SQLiteCacheStorage(path: path)
        } throws: { ($0 as? CacheStorageError)?.kind == .invalidConfiguration }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }

    @Test func badConfigurationIsATypedError() {
        let scratch = Scratch()
        #expect {
            try SQLiteCacheStorage(path: scratch.path("a.sqlite"), maxEntries: 0)
        } throws: { ($0 as? CacheStorageError)?.kind == .invalidConfiguration }
        #expect {
            try SQLiteCacheStorage(path: scratch.path("b.sqlite"), maxBytes: -1)
        } throws: { ($0 as? CacheStorageError)?.kind == .invalidConfiguration }
        #expect {
            try SQLiteCacheStorage(path: scratch.path("no/such/directory/c.sqlite"))
        } throws: { ($0 as? CacheStorageError)?.kind == .io }
    }

    /// Responses may be private: the file is readable by its owner only.
    @Test func theFileIsCreatedOwnerOnly() async throws {
        let scratch = Scratch()
        let path = scratch.path("cache.sqlite")
        let storage = try SQLiteCacheStorage(path: path)
        try await storage.store(record)
        let mode = try #require(FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)
        #expect(mode.intValue & 0o077 == 0, "mode \(String(mode.intValue, radix: 8))")
    }

    /// Two storages on one file (as two processes would have): each sees what the other
    /// wrote, and the limit counts both.
    @Test func twoStoragesShareOneFile() async throws {
        let scratch = Scratch()
        let path = scratch.path("shared.sqlite")
        let first = try SQLiteCacheStorage(path: path, maxEntries: 5)
        let second = try SQLiteCacheStorage(path: path, maxEntries: 5)
        try await first.store(record)
        #expect(try await second.record(forKey: record.key) == record)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, storage) in [first, second].enumerated() {
                group.addTask {
                    for round in 0..<20 {
                        var mine = record
                        mine.key = "GET /\(index)/\(round)"
                        try await storage.store(mine)
                    }
                }
            }
            try await group.waitForAll()
        }
        let (firstCount, secondCount) = (try await first.count(), try await second.count())
        #expect(firstCount == 5 && secondCount == 5)
    }

    /// An entry larger than `maxBytes` is not kept, and replaces the older one under its key.
    @Test func aRecordLargerThanTheLimitIsNotKept() async throws {
        let scratch = Scratch()
        let storage = try SQLiteCacheStorage(path: scratch.path("cache.sqlite"), maxBytes: 4_096)
        try await storage.store(record)
        var large = record
        large.body = Data(repeating: 1, count: 10_000)
        try await storage.store(large)
        #expect(try await storage.record(forKey: record.key) == nil)
    }

    /// Runs SQL with Python's sqlite3 (another process, another SQLite build).
    func sqlite(_ path: String, _ sql: String) async throws {
        let script = "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.executescript(sys.argv[2]); c.commit(); c.close()"
        try await runPython([script, path, sql])
    }

    /// Folds the write-ahead log into the database file, so that its pages hold the data.
    func checkpoint(_ path: String) async throws {
        let script = "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute('PRAGMA wal_checkpoint(TRUNCATE)'); c.close()"
        try await runPython([script, path])
    }

    /// Runs `python3 -c` with `arguments` and expects it to succeed.
    func runPython(_ arguments: [String]) async throws {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("fiber-sqlite-\(UUID().uuidString).log").path
        defer { try? FileManager.default.removeItem(atPath: log) }
        let process = try ChildProcess.spawn("/usr/bin/env", arguments: ["python3", "-c"] + arguments, output: log)
        let succeeded = await process.waitForSuccess(timeout: .seconds(60))
        #expect(succeeded, "python3: \((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")")
    }
}
