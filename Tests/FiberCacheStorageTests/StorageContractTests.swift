import Fiber
import FiberRuntime
import FiberSQLite
import Foundation
import Testing

/// The `CacheStorage` contract, run against every built-in storage: records come
/// back exactly as stored, replace, remove, count and evict the least recently used.
@Suite struct StorageContractTests {
    enum Kind: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case memory, disk, sqlite
        var testDescription: String { rawValue }

        func make(maxEntries: Int = 100, in directory: Scratch) throws -> any CacheStorage {
            switch self {
            case .memory: MemoryCacheStorage(maxEntries: maxEntries)
            case .disk: DiskCacheStorage(directory: directory.url.appendingPathComponent("records"),
                                         limits: DiskCacheLimits(maxEntries: maxEntries))
            case .sqlite: try SQLiteCacheStorage(path: directory.path("cache.sqlite"), maxEntries: maxEntries)
            }
        }
    }

    @Test(arguments: Kind.allCases) func recordsComeBackExactly(_ kind: Kind) async throws {
        let scratch = Scratch()
        let storage = try kind.make(in: scratch)
        var headers = HTTPHeaders()
        headers.append(name: "Set-Cookie", value: "a=1")
        headers.append(name: "Content-Type", value: "application/octet-stream")
        headers.append(name: "Set-Cookie", value: "b=2")
        let record = CacheRecord(
            key: "GET https://example.test/a?q=1 auth:00ff", statusCode: 203, headers: headers,
            body: Data((0...255).map(UInt8.init) + Array("zoë".utf8)),
            freshness: CacheFreshness(responseTime: Date(timeIntervalSince1970: 1_700_000_000.25), initialAge: 2,
                                      lifetime: 60, staleWhileRevalidate: 5),
            vary: ["accept": "text/html", "accept-language": String?.none], attributes: ["storageMode": "disk"])
        try await storage.store(record)
        #expect(try await storage.record(forKey: record.key) == record)
        #expect(try await storage.record(forKey: "GET https://example.test/other") == nil)
        #expect(try await storage.count() == 1)

        var replaced = record
        replaced.body = Data("v2".utf8)
        try await storage.store(replaced)
        #expect(try await storage.record(forKey: record.key)?.body == Data("v2".utf8))
        #expect(try await storage.count() == 1)
    }

    @Test(arguments: Kind.allCases) func removeOneSomeAndAll(_ kind: Kind) async throws {
        let scratch = Scratch()
        let storage = try kind.make(in: scratch)
        for key in ["GET /users", "GET /users/1", "GET /teams", "GET /teams/2"] { try await storage.store(sample(key)) }
        try await storage.removeRecord(forKey: "GET /teams/2")
        #expect(try await storage.record(forKey: "GET /teams/2") == nil)
        try await storage.removeRecords { $0.hasPrefix("GET /users") }
        #expect(try await storage.count() == 1)
        #expect(try await storage.record(forKey: "GET /teams") != nil)
        try await storage.removeRecord(forKey: "GET /absent")
        try await storage.removeAll()
        #expect(try await storage.count() == 0)
    }

    /// Past its limit a storage drops the least recently used: a read counts as a use.
    @Test(arguments: Kind.allCases) func evictsTheLeastRecentlyUsed(_ kind: Kind) async throws {
        let scratch = Scratch()
        let storage = try kind.make(maxEntries: 3, in: scratch)
        for key in ["a", "b", "c"] {
            try await storage.store(sample(key))
            try await Task.sleep(for: .milliseconds(20))  // distinct modification times and use stamps on disk
        }
        // SQLite stamps a read only when its record's stamp is a second old or more.
        if kind == .sqlite { try await Task.sleep(for: .milliseconds(1_100)) }
        _ = try await storage.record(forKey: "a")
        try await Task.sleep(for: .milliseconds(20))
        try await storage.store(sample("d"))
        #expect(try await storage.count() == 3)
        #expect(try await storage.record(forKey: "b") == nil, "b was the least recently used")
        for key in ["a", "c", "d"] { #expect(try await storage.record(forKey: key) != nil, "\(key) kept") }
    }

    /// Many tasks storing and reading at once: no error, nothing torn, the limit holds.
    @Test(arguments: Kind.allCases) func concurrentWritersAndReaders(_ kind: Kind) async throws {
        let scratch = Scratch()
        let storage = try kind.make(maxEntries: 20, in: scratch)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<16 {
                group.addTask {
                    for round in 0..<10 {
                        let key = "GET /item/\((task * 10 + round) % 40)"
                        try await storage.store(sample(key, body: key))
                        if let found = try await storage.record(forKey: key) {
                            #expect(String(decoding: found.body, as: UTF8.self) == key)
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        // At most the limit; SQLite evicts a tenth of a limit at once when it is reached.
        let count = try await storage.count()
        #expect((18...20).contains(count), "\(count)")
    }

    func sample(_ key: String, body: String = "body") -> CacheRecord {
        CacheRecord(key: key, statusCode: 200, headers: ["Content-Type": "text/plain"], body: Data(body.utf8),
                    freshness: CacheFreshness(responseTime: Date(), lifetime: 60))
    }
}

/// A directory for one test, removed when the test releases it.
final class Scratch: Sendable {
    let url: URL

    init() {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("fiber-storage-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    deinit { try? FileManager.default.removeItem(at: url) }
}
