@testable import Fiber
import FiberSQLite
import FiberTesting
import Foundation
import Testing

@Suite struct CacheInterceptorTests {
    @Test(arguments: CacheStorageKind.allCases) func servesHitsWithoutTheNetworkUntilTTL(_ kind: CacheStorageKind) async throws {
        let directory = TemporaryDirectory()
        let clock = TestClock()
        let cache = try kind.cache(ttl: 300, maxEntries: 100, clock: clock.fiberClock, in: directory)
        let (fiber, mock) = mockFiber([cache])
        let calls = Counter()
        mock.stub { _ in .ok(body: "v\(calls.increment())") }
        let first = try await fiber.get("/config")
        let second = try await fiber.get("/config")
        #expect(first.text == "v1" && second.text == "v1")
        #expect(second.traceID != first.traceID)  // a hit belongs to the request that asked
        #expect(mock.requests.count == 1)
        clock.advance(by: .seconds(301))
        #expect(try await fiber.get("/config").text == "v2")
        #expect(await cache.count == 1)
    }

    @Test(arguments: CacheStorageKind.allCases) func evictAndClear(_ kind: CacheStorageKind) async throws {
        let directory = TemporaryDirectory()
        let cache = try kind.cache(clock: TestClock().fiberClock, in: directory)
        let (fiber, mock) = mockFiber([cache])
        mock.stubAll(.ok())
        try await fiber.get("/config")
        try await fiber.get("/users", query: ["page": "1"])
        #expect(await cache.count == 2)
        await cache.evict(url: "/config")
        #expect(await cache.count == 1)
        await cache.evict(url: "/users?page=1")
        #expect(await cache.count == 0)
        try await fiber.get("/config")
        await cache.evict(url: "https://api.example.com/config")
        #expect(await cache.count == 0)
        try await fiber.get("/a")
        try await fiber.get("/b")
        await cache.clear()
        #expect(await cache.count == 0)
        #expect(mock.requests.count == 5)
    }

    @Test(arguments: CacheStorageKind.allCases) func onlyCacheableMethodsAndSuccesses(_ kind: CacheStorageKind) async throws {
        let directory = TemporaryDirectory()
        let cache = try kind.cache(clock: TestClock().fiberClock, in: directory)
        let (fiber, mock) = mockFiber([cache])
        mock.stub { $0.url?.path == "/missing" ? .notFound() : nil }
        mock.stub { $0.url?.path == "/private" ? StubResponse.ok().header("Cache-Control", "private, no-store") : nil }
        mock.stubDefault { _ in .ok() }
        for _ in 0..<2 {
            try await fiber.post("/a")
            try await fiber.get("/missing")
            try await fiber.get("/private")
            try await fiber.send(FiberRequest(url: "https://api.example.com/skip").meta("cache", "skip"))
        }
        #expect(mock.requests.count == 8)
        #expect(await cache.count == 0)
    }

    @Test(arguments: CacheStorageKind.allCases) func keyedByAuthorization(_ kind: CacheStorageKind) async throws {
        let directory = TemporaryDirectory()
        let cache = try kind.cache(clock: TestClock().fiberClock, in: directory)
        let (fiber, mock) = mockFiber([cache])
        mock.stub { .ok(body: $0.value(forHTTPHeaderField: "Authorization") ?? "anonymous") }
        #expect(try await fiber.get("/me", headers: ["Authorization": "Bearer a"]).text == "Bearer a")
        #expect(try await fiber.get("/me", headers: ["Authorization": "Bearer b"]).text == "Bearer b")
        #expect(try await fiber.get("/me", headers: ["Authorization": "Bearer a"]).text == "Bearer a")
        #expect(mock.requests.count == 2)
    }

    @Test(arguments: CacheStorageKind.allCases) func lruBoundUnderConcurrentDistinctKeys(_ kind: CacheStorageKind) async throws {
        let directory = TemporaryDirectory()
        let cache = try kind.cache(maxEntries: 50, clock: TestClock().fiberClock, in: directory)
        let (fiber, mock) = mockFiber([cache])
        mock.stubAll(.ok())
        // Fewer rounds over storages that write files (each write is flushed to the device).
        let requests = kind == .builtIn || kind == .memory ? 1000 : 300
        try await withThrowingTaskGroup(of: Void.self) { group in
            for i in 0..<requests { group.addTask { try await fiber.get("/item/\(i % 200)") } }
            try await group.waitForAll()
        }
        // At most the limit; SQLite evicts a tenth of a limit at once when it is reached.
        let count = await cache.count
        #expect((45...50).contains(count), "\(count)")
        #expect(mock.requests.count >= 200)
    }

    /// 1,000 concurrent requests for one warm entry: all answered from the cache.
    @Test(arguments: CacheStorageKind.allCases) func concurrentHitsOnWarmEntry(_ kind: CacheStorageKind) async throws {
        let directory = TemporaryDirectory()
        let cache = try kind.cache(clock: TestClock().fiberClock, in: directory)
        let (fiber, mock) = mockFiber([cache])
        mock.stubAll(.ok(body: "cached"))
        try await fiber.get("/hot")
        let bodies = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<1000 { group.addTask { try await fiber.get("/hot").text } }
            return try await group.reduce(into: [String]()) { $0.append($1) }
        }
        #expect(bodies.count == 1000 && Set(bodies) == ["cached"])
        #expect(mock.requests.count == 1)
    }
}
