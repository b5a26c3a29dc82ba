import Fiber
@testable import FiberSharing
import FiberRuntime
import FiberTesting
import Foundation
import Testing

/// `SharedFiber` follows its shared configuration; the configuration is observable.
@Suite(.timeLimit(.minutes(2))) struct SharedFiberTests {
    @Test func rebuildsTheClientWhenTheConfigurationChanges() async throws {
        try await withCacheWorld { world in
            world.server.route(prefix: "/") { request in
                .ok("\(request.path) \(request.header("Authorization") ?? "-") \(request.header("X-Flag") ?? "-")")
            }
            let fiber = world.fiber()
            let before = fiber.client
            let text1 = try await fiber.get("/users").text
            #expect(text1 == "/users - -")
            #expect(fiber.client === before)
            world.configuration.withLock {
                $0.authToken = "new-token"
                $0.defaultHeaders["X-Flag"] = "new-ui"
                $0.defaultTimeout = 60
            }
            #expect(fiber.client !== before)
            #expect(fiber.client.configuration.timeout == 60)
            let text2 = try await fiber.get("/users").text
            #expect(text2 == "/users Bearer new-token new-ui")
            let base = world.server.baseURL
            world.configuration.withLock { $0.baseURL = URL(string: base + "/v2") ?? $0.baseURL }
            let text3 = try await fiber.get("/users").text
            #expect(text3 == "/v2/users Bearer new-token new-ui")
        }
    }

    @Test func theHookAdjustsEveryBuild() async throws {
        try await withCacheWorld { world in
            world.server.route(prefix: "/") { request in .ok(request.header("X-Token") ?? "-") }
            let transport = world.transport
            let builds = Counter()
            let fiber = SharedFiber(configuration: world.configuration, store: world.store) { config, fiberConfig in
                builds.increment()
                fiberConfig.transport = transport
                fiberConfig.interceptors = [AnyInterceptor("token") { request, next in
                    try await next(request.header("X-Token", config.authToken ?? "none"))
                }]
                fiberConfig.timeout = config.defaultTimeout
            }
            let text4 = try await fiber.get("/").text
            #expect(text4 == "none")
            world.configuration.withLock { $0.authToken = "t2" }
            let text5 = try await fiber.get("/").text
            #expect(text5 == "t2")
            let text6 = try await fiber.get("/").text
            #expect(text6 == "t2")
            #expect(builds.count == 2)
        }
    }

    @Test func theGuidesHookWithAuthRetryAndLogging() async throws {
        try await withCacheWorld { world in
            world.server.route("GET", "/users") { request in .json(#"[{"id":1,"name":"\#(request.header("Authorization") ?? "-")"}]"#) }
            let transport = world.transport
            let fiber = SharedFiber(configuration: world.configuration, store: world.store) { config, fiberConfig in
                fiberConfig.interceptors = [
                    AuthInterceptor(tokenProvider: { config.authToken }),
                    RetryInterceptor(),
                    LoggingInterceptor(logger: PrintFiberLogger()),
                ]
                fiberConfig.timeout = config.defaultTimeout
                fiberConfig.transport = transport
            }
            world.configuration.withLock { $0.authToken = "guide-token" }
            let users = try await fiber.getCached("/users", as: [User].self, policy: .default)
            #expect(users.value.first?.name == "Bearer guide-token")
            let response = try await fiber.get("/users")
            #expect(response.statusCode == 200)
            let store = fiber.store
            let cached: CachedResponse<[User]>? = await store.get(fiber.cacheKey(for: "/users"), as: [User].self)
            #expect(cached?.value == users.value)
            #expect(await store.memoryCount == 1)
        }
    }

    @Test func changesAreAnAsyncSequence() async throws {
        let reference = SharedReference(FiberConfiguration())
        var changes = reference.changes.makeAsyncIterator()
        reference.withLock { $0.authToken = "a" }
        reference.withLock { $0.authToken = "a" }  // no change, no element
        reference.withLock { $0.defaultTimeout = 5 }
        #expect(await changes.next()?.authToken == "a")
        #expect(await changes.next()?.defaultTimeout == 5)
        #expect(reference.version == 2)
        let fiber = SharedFiber(configuration: reference)
        var fiberChanges = fiber.configurationChanges.makeAsyncIterator()
        reference.withLock { $0.defaultHeaders["A"] = "1" }
        #expect(await fiberChanges.next()?.defaultHeaders == ["A": "1"])
    }

    @Test func theSeedsSharedConfigurationSnippetCompiles() async throws {
        @Shared(.fiberConfiguration) var config
        let original = config
        defer { $config.withLock { $0 = original } }
        $config.withLock {
            $0.baseURL = URL(string: "https://staging.api.com") ?? $0.baseURL
            $0.authToken = "new-token"
            $0.defaultTimeout = 60
            $0.defaultHeaders["X-Feature-Flag"] = "new-ui"
        }
        #expect(config.baseURL.absoluteString == "https://staging.api.com")
        #expect(config.authToken == "new-token")
        let fiber = SharedFiber()
        #expect(fiber.configuration == config)
        #expect(fiber.client.baseURL == "https://staging.api.com")
        #expect(fiber.store === SharedCacheStore.shared)
    }
}

/// `CachedResource`: the observable stand-in for `@SharedReader(.api(...))`.
@Suite(.timeLimit(.minutes(2))) struct CachedResourceTests {
    @Test func loadsAndFollowsRefreshes() async throws {
        try await withCacheWorld { world in
            serveVersions(world, "/users")
            let fiber = world.fiber()
            let policy = CachePolicy(ttl: 10, staleWhileRevalidate: 60)
            let users = CachedResource(.api("/users", as: [User].self, policy: policy), fiber: fiber)
            #expect(users.current == nil)
            var updates = users.values.makeAsyncIterator()
            let first = try await updates.next()
            #expect(first?.value.first?.name == "v1" && first?.source == .network)
            #expect(users.current?.value == first?.value)
            // A stale read elsewhere starts the background refresh; the resource sees its result.
            world.advance(15)
            let stale = try await fiber.getCached("/users", as: [User].self, policy: policy)
            #expect(stale.isStale)
            let refreshed = try await updates.next()
            #expect(refreshed?.value.first?.name == "v2" && refreshed?.isFresh == true)
            // Observers hear of the refresh as it is stored, a moment before its flight ends;
            // a reload in that moment would join it (`reload()` joins a request under way).
            await fiber.waitForBackgroundRefreshes()
            // A reload goes to the network now; an invalidation makes the resource fetch again.
            _ = try await users.reload()
            let reloaded = try await updates.next()
            #expect(reloaded?.value.first?.name == "v3")
            await fiber.invalidateCache(for: "/users")
            let refetched = try await updates.next()
            #expect(refetched?.value.first?.name == "v4")
            #expect(world.server.requestCount == 4)
            let loaded = try await users.load()
            #expect(loaded.source == .memory)
        }
    }

    @Test func cachedAPIShorthand() {
        let key = APIKey.cachedAPI("/config", as: [String: String].self, ttl: 3600, storage: .disk)
        #expect(key.policy == CachePolicy(ttl: 3600, storageMode: .disk))
        let api: APIKey<[User]> = .api("/users", as: [User].self, policy: .aggressive)
        #expect(api.path == "/users" && api.policy == .aggressive)
    }

    @Test func presetsMatchTheGuide() {
        #expect(CachePolicy.default == CachePolicy(ttl: 300, staleWhileRevalidate: 0, storageMode: .memory, maxEntries: 100))
        #expect(CachePolicy.aggressive == CachePolicy(ttl: 1800, staleWhileRevalidate: 60, storageMode: .memoryAndDisk,
                                                      maxEntries: 200))
        #expect(CachePolicy.persistent == CachePolicy(ttl: 3600, staleWhileRevalidate: 300, storageMode: .disk,
                                                      maxEntries: 500))
        #expect(CachePolicy.noCache.ttl == 0 && CachePolicy.noCache.maxEntries == 0 && CachePolicy.noCache.disablesCaching)
        #expect(!CachePolicy.default.disablesCaching)
    }
}
