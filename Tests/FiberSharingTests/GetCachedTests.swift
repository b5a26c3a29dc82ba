import Fiber
@testable import FiberSharing
import FiberRuntime
import FiberTesting
import Foundation
import Testing

/// `getCached` against the loopback server, counting the requests it serves;
/// time moves only when a test advances the virtual clock.
@Suite(.timeLimit(.minutes(2))) struct GetCachedTests {
    @Test func missThenHitThenExpiry() async throws {
        try await withCacheWorld { world in
            serveVersions(world, "/users")
            let fiber = world.fiber()
            let policy = CachePolicy(ttl: 60)
            let first = try await fiber.getCached("/users", as: [User].self, policy: policy)
            #expect(first.value.first?.name == "v1" && first.source == .network && first.isFresh && first.age == 0)
            world.advance(59)
            let hit = try await fiber.getCached("/users", as: [User].self, policy: policy)
            #expect(hit.value.first?.name == "v1" && hit.source == .memory && hit.isFresh && hit.age == 59)
            #expect(world.server.requestCount == 1)
            world.advance(1)
            let refetched = try await fiber.getCached("/users", as: [User].self, policy: policy)
            #expect(refetched.value.first?.name == "v2" && refetched.source == .network)
            #expect(world.server.requestCount == 2)
        }
    }

    @Test func queryIsPartOfTheKey() async throws {
        try await withCacheWorld { world in
            serveVersions(world, "/users")
            let fiber = world.fiber()
            let one = try await fiber.getCached("/users", as: [User].self, query: ["page": "1", "limit": "20"])
            let two = try await fiber.getCached("/users", as: [User].self, query: ["page": "2", "limit": "20"])
            let oneAgain = try await fiber.getCached("/users", as: [User].self, query: ["limit": "20", "page": "1"])
            #expect(one.value != two.value)
            #expect(oneAgain.value == one.value && oneAgain.source == .memory)
            #expect(world.server.requestCount == 2)
            #expect(world.server.recordedRequests().first?.rawQuery == "limit=20&page=1")
        }
    }

    @Test func staleWhileRevalidateRefreshesOnceForAHundredCallers() async throws {
        try await withCacheWorld { world in
            let version = Counter()
            let gate = Gate()
            world.server.route("GET", "/feed") { _ in
                let current = version.increment()
                if current > 1 { await gate.wait() }
                return .json(usersJSON(current))
            }
            let fiber = world.fiber()
            let policy = CachePolicy(ttl: 10, staleWhileRevalidate: 60)
            _ = try await fiber.getCached("/feed", as: [User].self, policy: policy)
            world.advance(15)
            // Every caller is answered from the stale entry while the refresh is still held by the server.
            let results = try await withThrowingTaskGroup(of: CachedResponse<[User]>.self) { group in
                for _ in 0..<100 { group.addTask { try await fiber.getCached("/feed", as: [User].self, policy: policy) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(results.count == 100)
            #expect(results.allSatisfy { $0.value.first?.name == "v1" && $0.isStale && $0.isExpired && $0.source == .memory })
            try await waitUntil { world.server.requestCount == 2 }
            await gate.open()
            await fiber.waitForBackgroundRefreshes()
            #expect(world.server.requestCount == 2)
            let after = try await fiber.getCached("/feed", as: [User].self, policy: policy)
            #expect(after.value.first?.name == "v2" && after.isFresh && after.source == .memory)
            #expect(world.server.requestCount == 2)
            world.advance(80)
            let expired = try await fiber.getCached("/feed", as: [User].self, policy: policy)
            #expect(expired.value.first?.name == "v3" && expired.source == .network)
        }
    }

    @Test func concurrentMissesMakeOneRequest() async throws {
        try await withCacheWorld { world in
            let gate = Gate()
            world.server.route("GET", "/slow") { _ in
                await gate.wait()
                return .json(usersJSON(1))
            }
            let fiber = world.fiber()
            let callers = Task {
                try await withThrowingTaskGroup(of: CachedResponse<[User]>.self) { group in
                    for _ in 0..<100 { group.addTask { try await fiber.getCached("/slow", as: [User].self) } }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
            }
            try await waitUntil { fiber.coalescer.joinedCount == 99 && world.server.requestCount == 1 }
            #expect(world.server.requestCount == 1)
            await gate.open()
            let results = try await callers.value
            #expect(results.count == 100 && results.allSatisfy { $0.value.first?.name == "v1" })
            #expect(world.server.requestCount == 1)
        }
    }

    @Test func etagRevalidationWith304() async throws {
        try await withCacheWorld { world in
            world.server.route("GET", "/users") { request in
                if request.header("If-None-Match") == "\"v1\"" {
                    return TestResponse(status: 304, headers: ["ETag": "\"v1\"", "Cache-Control": "max-age=30"])
                }
                return TestResponse.json(usersJSON(1)).withHeader("ETag", "\"v1\"")
            }
            let fiber = world.fiber()
            let policy = CachePolicy(ttl: 10)
            let first = try await fiber.getCached("/users", as: [User].self, policy: policy)
            #expect(first.etag == "\"v1\"")
            #expect(world.server.lastRequest?.header("If-None-Match") == nil)
            world.advance(11)
            let revalidated = try await fiber.getCached("/users", as: [User].self, policy: policy)
            #expect(world.server.requestCount == 2)
            #expect(world.server.lastRequest?.header("If-None-Match") == "\"v1\"")
            #expect(revalidated.source == .revalidated && revalidated.value == first.value)
            #expect(revalidated.isFresh && revalidated.age == 0 && revalidated.etag == "\"v1\"")
            // The 304's max-age=30 now rules the entry.
            world.advance(29)
            #expect(try await fiber.getCached("/users", as: [User].self, policy: policy).source == .memory)
            #expect(world.server.requestCount == 2)
        }
    }

    @Test func lastModifiedRevalidation() async throws {
        try await withCacheWorld { world in
            let stamp = "Sun, 06 Nov 1994 08:49:37 GMT"
            world.server.route("GET", "/doc") { request in
                if request.header("If-Modified-Since") == stamp { return .status(304) }
                return TestResponse.json(usersJSON(1)).withHeader("Last-Modified", stamp)
            }
            let fiber = world.fiber()
            _ = try await fiber.getCached("/doc", as: [User].self, policy: CachePolicy(ttl: 5))
            world.advance(6)
            let again = try await fiber.getCached("/doc", as: [User].self, policy: CachePolicy(ttl: 5))
            #expect(again.source == .revalidated && again.lastModified == stamp && again.isFresh)
            #expect(world.server.lastRequest?.header("If-Modified-Since") == stamp)
        }
    }

    @Test func serverDirectivesWinOverThePolicy() async throws {
        try await withCacheWorld { world in
            serveVersions(world, "/short", headers: ["Cache-Control": "max-age=5"])
            serveVersions(world, "/never", headers: ["Cache-Control": "no-store"])
            serveVersions(world, "/always", headers: ["Cache-Control": "no-cache", "ETag": "\"x\""])
            let fiber = world.fiber()
            let policy = CachePolicy(ttl: 300)
            _ = try await fiber.getCached("/short", as: [User].self, policy: policy)
            world.advance(6)
            #expect(try await fiber.getCached("/short", as: [User].self, policy: policy).source == .network)
            _ = try await fiber.getCached("/never", as: [User].self, policy: policy)
            #expect(try await fiber.getCached("/never", as: [User].self, policy: policy).value.first?.name == "v2")
            _ = try await fiber.getCached("/always", as: [User].self, policy: policy)
            _ = try await fiber.getCached("/always", as: [User].self, policy: policy)
            #expect(world.server.lastRequest?.header("If-None-Match") == "\"x\"")
            #expect(world.server.requestCount == 6)
            #expect(await world.store.memoryCount == 2)
        }
    }

    @Test func varyHeadersKeepVariantsApart() async throws {
        try await withCacheWorld { world in
            world.server.route("GET", "/greeting") { request in
                let name = request.header("X-Lang") ?? "none"
                return TestResponse.json(#"[{"id":1,"name":"\#(name)"}]"#).withHeader("Vary", "X-Lang")
            }
            let fiber = world.fiber()
            world.configuration.withLock { $0.defaultHeaders["X-Lang"] = "en" }
            let english = try await fiber.getCached("/greeting", as: [User].self)
            world.configuration.withLock { $0.defaultHeaders["X-Lang"] = "fr" }
            let french = try await fiber.getCached("/greeting", as: [User].self)
            let frenchAgain = try await fiber.getCached("/greeting", as: [User].self)
            #expect(english.value.first?.name == "en")
            #expect(french.value.first?.name == "fr" && french.source == .network)
            #expect(frenchAgain.value.first?.name == "fr" && frenchAgain.source == .memory)
            #expect(world.server.requestCount == 2)
        }
    }

    @Test func twoUsersNeverShareEntries() async throws {
        try await withCacheWorld { world in
            world.server.route("GET", "/me") { request in
                .json(#"[{"id":1,"name":"\#(request.header("Authorization") ?? "anonymous")"}]"#)
            }
            let fiber = world.fiber()
            world.configuration.withLock { $0.authToken = "alice" }
            #expect(try await fiber.getCached("/me", as: [User].self).value.first?.name == "Bearer alice")
            world.configuration.withLock { $0.authToken = "bob" }
            #expect(try await fiber.getCached("/me", as: [User].self).value.first?.name == "Bearer bob")
            world.configuration.withLock { $0.authToken = "alice" }
            let alice = try await fiber.getCached("/me", as: [User].self)
            #expect(alice.value.first?.name == "Bearer alice" && alice.source == .memory)
            #expect(world.server.requestCount == 2)
            #expect(fiber.cacheKey(for: "/me").hasPrefix("GET:/me "))
            #expect(!fiber.cacheKey(for: "/me").contains("alice"))
        }
    }

    @Test func invalidationByPathQueryAndPrefix() async throws {
        try await withCacheWorld { world in
            serveVersions(world, "/users")
            serveVersions(world, "/users/1")
            serveVersions(world, "/posts")
            let fiber = world.fiber()
            func fetchAll() async throws -> Int {
                _ = try await fiber.getCached("/users", as: [User].self)
                _ = try await fiber.getCached("/users", as: [User].self, query: ["page": "1"])
                _ = try await fiber.getCached("/users", as: [User].self, query: ["page": "2"])
                _ = try await fiber.getCached("/users/1", as: [User].self)
                _ = try await fiber.getCached("/posts", as: [User].self)
                return world.server.requestCount
            }
            let served1 = try await fetchAll()
            #expect(served1 == 5)
            let served2 = try await fetchAll()
            #expect(served2 == 5)
            await fiber.invalidateCache(for: "/users", query: ["page": "1"])
            let served3 = try await fetchAll()
            #expect(served3 == 6)
            await fiber.invalidateCache(for: "/users")
            let served4 = try await fetchAll()
            #expect(served4 == 9)
            await fiber.invalidateCacheMatching("GET:/users")
            let served5 = try await fetchAll()
            #expect(served5 == 13)
            await fiber.clearCache()
            let served6 = try await fetchAll()
            #expect(served6 == 18)
        }
    }

    @Test func memoryEvictionIsLeastRecentlyUsed() async throws {
        try await withCacheWorld { world in
            for path in ["/a", "/b", "/c"] { serveVersions(world, path) }
            let fiber = world.fiber()
            let policy = CachePolicy(ttl: 60, maxEntries: 2)
            _ = try await fiber.getCached("/a", as: [User].self, policy: policy)
            _ = try await fiber.getCached("/b", as: [User].self, policy: policy)
            _ = try await fiber.getCached("/a", as: [User].self, policy: policy)
            _ = try await fiber.getCached("/c", as: [User].self, policy: policy)
            #expect(world.server.requestCount == 3)
            #expect(try await fiber.getCached("/a", as: [User].self, policy: policy).source == .memory)
            #expect(try await fiber.getCached("/b", as: [User].self, policy: policy).source == .network)
            #expect(await world.store.memoryCount == 2)
        }
    }

    @Test func diskEntriesServeANewStoreAndClient() async throws {
        try await withCacheWorld { world in
            serveVersions(world, "/catalog")
            _ = try await world.fiber().getCached("/catalog", as: [User].self, policy: .persistent)
            world.advance(100)
            let reopened = world.fiber(store: world.reopenedStore())
            let cached = try await reopened.getCached("/catalog", as: [User].self, policy: .persistent)
            #expect(cached.source == .disk && cached.value.first?.name == "v1" && cached.age == 100)
            #expect(world.server.requestCount == 1)
        }
    }

    @Test func corruptDiskEntryFallsBackToTheNetwork() async throws {
        try await withCacheWorld { world in
            serveVersions(world, "/catalog")
            _ = try await world.fiber().getCached("/catalog", as: [User].self, policy: .persistent)
            let file = try #require(world.directory.entryFiles.first)
            let bytes = try Data(contentsOf: file)
            try bytes.prefix(bytes.count - 10).write(to: file)
            let reopened = world.fiber(store: world.reopenedStore())
            let fetched = try await reopened.getCached("/catalog", as: [User].self, policy: .persistent)
            #expect(fetched.source == .network && fetched.value.first?.name == "v2")
            #expect(world.directory.entryFiles.count == 1)
            let healed = try DiskRecordCodec.decode(try Data(contentsOf: try #require(world.directory.entryFiles.first)))
            #expect(healed.key == reopened.cacheKey(for: "/catalog"))
        }
    }

    @Test func failuresAreThrownAndNotStored() async throws {
        try await withCacheWorld { world in
            world.server.route("GET", "/broken") { _ in .text("boom", status: 500) }
            world.server.route("GET", "/notjson") { _ in .ok("plain") }
            let fiber = world.fiber()
            for _ in 0..<2 {
                await #expect(throws: FiberError.self) { try await fiber.getCached("/broken", as: [User].self) }
                await #expect(throws: FiberError.self) { try await fiber.getCached("/notjson", as: [User].self) }
            }
            #expect(world.server.requestCount == 4)
            #expect(await world.store.memoryCount == 0)
        }
    }

    @Test func noCachePolicyAlwaysFetches() async throws {
        try await withCacheWorld { world in
            serveVersions(world, "/live")
            let fiber = world.fiber()
            for expected in 1...3 {
                let result = try await fiber.getCached("/live", as: [User].self, policy: .noCache)
                #expect(result.value.first?.name == "v\(expected)" && result.source == .network)
            }
            #expect(await world.store.memoryCount == 0)
        }
    }

    @Test func mutationsInvalidateTheirPath() async throws {
        try await withCacheWorld { world in
            serveVersions(world, "/users")
            world.server.route("POST", "/users") { _ in .status(201) }
            let fiber = world.fiber()
            _ = try await fiber.getCached("/users", as: [User].self)
            try await fiber.post("/users", body: User(id: 2, name: "new"))
            #expect(try await fiber.getCached("/users", as: [User].self).value.first?.name == "v2")
            #expect(world.server.requestCount == 3)
        }
    }
}
