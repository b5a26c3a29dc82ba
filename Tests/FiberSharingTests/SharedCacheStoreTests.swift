import Fiber
@testable import FiberSharing
import FiberTesting
import Foundation
import Testing

/// The store on its own: tiers, limits, persistence, damaged files.
@Suite struct SharedCacheStoreTests {
    let users = [User(id: 1, name: "a")]

    func withStore(limits: DiskCacheLimits = DiskCacheLimits(),
                   _ body: (SharedCacheStore, TemporaryDirectory, TestClock) async throws -> Void) async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let clock = TestClock()
        let store = SharedCacheStore(directory: directory.url, diskLimits: limits, clock: CacheClock(clock.fiberClock))
        try await body(store, directory, clock)
    }

    @Test func setThenGetWithFreshness() async throws {
        try await withStore { store, _, clock in
            await store.set("GET:/users", value: users, policy: CachePolicy(ttl: 10, staleWhileRevalidate: 5),
                            etag: "\"e\"", lastModified: "Sun, 06 Nov 1994 08:49:37 GMT")
            let fresh = try #require(await store.get("GET:/users", as: [User].self))
            #expect(fresh.value == users)
            #expect(fresh.isFresh && !fresh.isExpired && fresh.age == 0 && fresh.source == .memory)
            #expect(fresh.etag == "\"e\"" && fresh.lastModified == "Sun, 06 Nov 1994 08:49:37 GMT")
            clock.advance(by: .seconds(12))
            let stale = try #require(await store.get("GET:/users", as: [User].self))
            #expect(stale.isExpired && stale.isStale && stale.age == 12)
            #expect(await store.get("GET:/users", as: Int.self) == nil)
            #expect(await store.get("GET:/none", as: [User].self) == nil)
            #expect(await store.memoryCount == 1)
        }
    }

    @Test func memoryTierEvictsTheLeastRecentlyUsed() async throws {
        try await withStore { store, _, _ in
            let policy = CachePolicy(ttl: 60, maxEntries: 3)
            for index in 1...3 { await store.set("k\(index)", value: index, policy: policy) }
            _ = await store.get("k1", as: Int.self)
            await store.set("k4", value: 4, policy: policy)
            #expect(await store.memoryCount == 3)
            #expect(await store.get("k2", as: Int.self) == nil)
            for key in ["k1", "k3", "k4"] { #expect(await store.get(key, as: Int.self) != nil) }
            #expect(await store.diskCount == 0)
        }
    }

    @Test func noCacheStoresNothing() async throws {
        try await withStore { store, _, _ in
            await store.set("k", value: 1, policy: .default)
            await store.set("k", value: 2, policy: .noCache)
            #expect(await store.get("k", as: Int.self) == nil)
            #expect(await store.memoryCount == 0)
        }
    }

    @Test func diskEntriesSurviveANewStore() async throws {
        try await withStore { store, directory, clock in
            await store.set("GET:/disk", value: users, policy: .persistent)
            await store.set("GET:/both", value: users, policy: .aggressive)
            await store.set("GET:/memory", value: users, policy: .default)
            #expect(await store.memoryCount == 2)
            #expect(directory.entryFiles.count == 2)
            clock.advance(by: .seconds(30))
            let reopened = SharedCacheStore(directory: directory.url, clock: CacheClock(clock.fiberClock))
            let disk = try #require(await reopened.get("GET:/disk", as: [User].self))
            #expect(disk.value == users && disk.source == .disk && disk.age == 30 && disk.isFresh)
            #expect(await reopened.get("GET:/both", as: [User].self)?.source == .disk)
            #expect(await reopened.get("GET:/both", as: [User].self)?.source == .memory)
            #expect(await reopened.get("GET:/disk", as: [User].self)?.source == .disk)
            #expect(await reopened.get("GET:/memory", as: [User].self) == nil)
            #expect(await reopened.diskCount == 2)
        }
    }

    @Test func corruptOrTruncatedFilesAreMissesAndRemoved() async throws {
        try await withStore { store, directory, clock in
            await store.set("GET:/a", value: users, policy: .persistent)
            await store.set("GET:/b", value: users, policy: .persistent)
            await store.set("GET:/c", value: users, policy: .persistent)
            let files = directory.entryFiles
            try #require(files.count == 3)
            let name = { (key: String) in directory.url.appendingPathComponent(DiskCacheStorage.fileName(for: key)) }
            let whole = try Data(contentsOf: name("GET:/a"))
            try whole.prefix(whole.count / 2).write(to: name("GET:/a"))
            var flipped = try Data(contentsOf: name("GET:/b"))
            flipped[flipped.count - 40] ^= 0xFF
            try flipped.write(to: name("GET:/b"))
            try Data("garbage".utf8).write(to: directory.url.appendingPathComponent(".tmp-crashed"))
            let reopened = SharedCacheStore(directory: directory.url, clock: CacheClock(clock.fiberClock))
            #expect(await reopened.get("GET:/a", as: [User].self) == nil)
            #expect(await reopened.get("GET:/b", as: [User].self) == nil)
            #expect(await reopened.get("GET:/c", as: [User].self)?.value == users)
            #expect(directory.entryFiles == [name("GET:/c")])
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.url.path)
            #expect(!leftovers.contains(".tmp-crashed"))
        }
    }

    @Test func corruptFileFoundOnReadIsRemoved() async throws {
        try await withStore { store, directory, _ in
            await store.set("GET:/a", value: users, policy: .persistent)
            #expect(await store.diskCount == 1)
            let file = try #require(directory.entryFiles.first)
            try Data(repeating: 7, count: 100).write(to: file)
            #expect(await store.get("GET:/a", as: [User].self) == nil)
            #expect(directory.entryFiles.isEmpty)
            #expect(await store.diskCount == 0)
        }
    }

    @Test func diskLimitsEvictTheLeastRecentlyUsed() async throws {
        try await withStore(limits: DiskCacheLimits(maxEntries: 3, maxBytes: 1 << 20, maxEntryBytes: 2_000)) {
            store, directory, _ in
            for index in 1...3 { await store.set("k\(index)", value: index, policy: .persistent) }
            _ = await store.get("k1", as: Int.self)
            await store.set("k4", value: 4, policy: .persistent)
            #expect(directory.entryFiles.count == 3)
            #expect(await store.get("k2", as: Int.self) == nil)
            #expect(await store.get("k1", as: Int.self) != nil)
            await store.set("big", value: String(repeating: "x", count: 5_000), policy: .persistent)
            #expect(await store.get("big", as: String.self) == nil)
            #expect(directory.entryFiles.count == 3)
        }
        try await withStore(limits: DiskCacheLimits(maxEntries: 100, maxBytes: 1_500, maxEntryBytes: 1_500)) {
            store, directory, _ in
            for index in 1...10 { await store.set("k\(index)", value: String(repeating: "y", count: 200), policy: .persistent) }
            let total = directory.entryFiles.compactMap { try? Data(contentsOf: $0).count }.reduce(0, +)
            #expect(total <= 1_500)
            #expect(directory.entryFiles.count < 10)
            #expect(await store.get("k10", as: String.self) != nil)
        }
    }

    @Test func privateResponsesNeverReachTheDisk() async throws {
        try await withStore { store, directory, clock in
            let entry = CacheEntry(key: "GET:/me x", body: Data("1".utf8), headers: ["Cache-Control": "private, max-age=60"],
                                   freshness: CacheFreshness(responseTime: clock.now.date, lifetime: 60),
                                   storageMode: .memoryAndDisk)
            await store.store(entry, maxEntries: 10)
            #expect(await store.memoryCount == 1)
            #expect(directory.entryFiles.isEmpty)
        }
    }

    @Test func invalidationByKeyPrefixAndAll() async throws {
        try await withStore { store, directory, _ in
            for key in ["GET:/users", "GET:/users/1", "GET:/users?page=2", "GET:/posts"] {
                await store.set(key, value: 1, policy: .aggressive)
            }
            await store.invalidate("GET:/posts")
            #expect(await store.get("GET:/posts", as: Int.self) == nil)
            await store.invalidateMatching("GET:/users")
            #expect(await store.memoryCount == 0)
            #expect(directory.entryFiles.isEmpty)
            await store.set("a", value: 1, policy: .aggressive)
            await store.clearDisk()
            #expect(directory.entryFiles.isEmpty)
            #expect(await store.memoryCount == 1)
            await store.set("b", value: 1, policy: .aggressive)
            await store.invalidateAll()
            #expect(await store.memoryCount == 0)
            #expect(directory.entryFiles.isEmpty)
        }
    }

    @Test func observersHearChanges() async throws {
        try await withStore { store, _, _ in
            let changes = await store.changes(for: "k")
            var iterator = changes.makeAsyncIterator()
            await store.set("k", value: 1)
            #expect(await iterator.next() != nil)
            await store.invalidateMatching("k")
            #expect(await iterator.next() != nil)
        }
    }
}

extension Duration {
    /// The cache clock's date for a `TestClock` time.
    var date: Date { CacheClock(FiberClock(now: { self }, sleep: { _, _ in })).now() }
}
