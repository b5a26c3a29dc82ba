import Fiber
@testable import FiberSharing
import FiberRuntime
import FiberTesting
import Foundation
import Testing

/// RFC 9111 directives end to end: what the loopback server says changes what `getCached` does.
@Suite(.timeLimit(.minutes(2))) struct HTTPSemanticsTests {
    @Test func ageHeaderCountsTowardsFreshness() async throws {
        try await withCacheWorld { world in
            serveVersions(world, "/aged", headers: ["Age": "50", "Cache-Control": "max-age=60"])
            let fiber = world.fiber()
            let first = try await fiber.getCached("/aged", as: [User].self, policy: .default)
            #expect(first.age == 50 && first.isFresh)
            world.advance(9)
            let hit = try await fiber.getCached("/aged", as: [User].self, policy: .default)
            #expect(hit.source == .memory && hit.age == 59)
            world.advance(1)
            let refetched = try await fiber.getCached("/aged", as: [User].self, policy: .default)
            #expect(refetched.source == .network)
            #expect(world.server.requestCount == 2)
        }
    }

    @Test func mustRevalidateForbidsServingStale() async throws {
        try await withCacheWorld { world in
            serveVersions(world, "/strict", headers: ["Cache-Control": "max-age=5, must-revalidate"])
            let fiber = world.fiber()
            let policy = CachePolicy(ttl: 300, staleWhileRevalidate: 600)
            _ = try await fiber.getCached("/strict", as: [User].self, policy: policy)
            world.advance(6)
            let result = try await fiber.getCached("/strict", as: [User].self, policy: policy)
            #expect(result.source == .network && result.value.first?.name == "v2" && result.isFresh)
            #expect(world.server.requestCount == 2)
        }
    }

    @Test func serverStaleWindowReplacesThePolicys() async throws {
        try await withCacheWorld { world in
            serveVersions(world, "/swr", headers: ["Cache-Control": "max-age=5, stale-while-revalidate=10"])
            let fiber = world.fiber()
            _ = try await fiber.getCached("/swr", as: [User].self, policy: .default)
            world.advance(8)
            let stale = try await fiber.getCached("/swr", as: [User].self, policy: .default)
            #expect(stale.isStale && stale.value.first?.name == "v1")
            await fiber.waitForBackgroundRefreshes()
            #expect(world.server.requestCount == 2)
            world.advance(16)
            let expired = try await fiber.getCached("/swr", as: [User].self, policy: .default)
            #expect(expired.source == .network && expired.value.first?.name == "v3")
        }
    }

    @Test func requestNoCacheRevalidatesEveryTime() async throws {
        try await withCacheWorld { world in
            world.server.route("GET", "/validated") { request in
                if request.header("If-None-Match") == "\"a\"" { return .status(304) }
                return TestResponse.json(usersJSON(1)).withHeader("ETag", "\"a\"")
            }
            world.configuration.withLock { $0.defaultHeaders["Cache-Control"] = "no-cache" }
            let fiber = world.fiber()
            _ = try await fiber.getCached("/validated", as: [User].self)
            let again = try await fiber.getCached("/validated", as: [User].self)
            #expect(again.source == .revalidated)
            #expect(world.server.requestCount == 2)
        }
    }

    @Test func privateResponsesStayInMemory() async throws {
        try await withCacheWorld { world in
            serveVersions(world, "/mine", headers: ["Cache-Control": "private, max-age=60"])
            let fiber = world.fiber()
            _ = try await fiber.getCached("/mine", as: [User].self, policy: .aggressive)
            #expect(try await fiber.getCached("/mine", as: [User].self, policy: .aggressive).source == .memory)
            #expect(world.directory.entryFiles.isEmpty)
            let elsewhere = world.fiber(store: world.reopenedStore())
            _ = try await elsewhere.getCached("/mine", as: [User].self, policy: .aggressive)
            #expect(world.server.requestCount == 2)
        }
    }

    @Test func varyStarIsNeverStored() async throws {
        try await withCacheWorld { world in
            serveVersions(world, "/star", headers: ["Vary": "*"])
            let fiber = world.fiber()
            _ = try await fiber.getCached("/star", as: [User].self)
            let second = try await fiber.getCached("/star", as: [User].self)
            #expect(second.source == .network && second.value.first?.name == "v2")
            #expect(await world.store.memoryCount == 0)
        }
    }
}
