import Crypto
import Fiber
import FiberRuntime
import FiberTesting
import Foundation
import Testing

/// The API over the real transport (the runtime's HTTP/1.1 client) against the
/// loopback test server.
@Suite struct LiveTransportTests {
    @Test func requestsAndResponses() async throws {
        try await withLiveServer { server, transport in
            server.route("GET", "/users") { request in
                .json(#"[{"id":1,"name":"\#(request.query("name") ?? "")"}]"#).withHeader("X-Version", "2")
            }
            server.route("POST", "/users") { request in .json(request.bodyText, status: 201) }
            let fiber = Fiber(server.baseURL) {
                $0.transport = transport
                $0.defaultHeaders = ["Accept": "application/json"]
            }
            let users: [User] = try await fiber.get("/users", query: ["name": "Zoë & co"]).decode()
            #expect(users == [User(id: 1, name: "Zoë & co")])
            let created = try await fiber.post("/users", body: User(id: 5, name: "Eve"))
            #expect(created.statusCode == 201 && created.header("x-VERSION") == nil)
            #expect(try created.decode(User.self) == User(id: 5, name: "Eve"))
            #expect(created.duration > 0)

            let seen = try #require(server.lastRequest)
            #expect(seen.header("Content-Type") == "application/json" && seen.header("Accept") == "application/json")
        }
    }

    /// The pipeline runs on the event loop that carries the request (no hop to reach the socket).
    @Test func interceptorsRunOnTheTransportsLoop() async throws {
        try await withLiveServer { server, transport in
            server.route("/", respond: .ok("x"))
            let loops = Locked<[ObjectIdentifier?]>([])
            let probe = AnyInterceptor("probe") { request, next in
                loops.withLock { $0.append(EventLoop.current.map(ObjectIdentifier.init)) }
                let response = try await next(request)
                loops.withLock { $0.append(EventLoop.current.map(ObjectIdentifier.init)) }
                return response
            }
            let fiber = Fiber(server.baseURL) { $0.transport = transport; $0.interceptors = [probe] }
            try await fiber.get("/")
            let seen = loops.withLock { $0 }
            #expect(seen.count == 2 && seen[0] != nil && seen[0] == seen[1])
        }
    }

    @Test func deadlineIsATimeout() async throws {
        try await withLiveServer { server, transport in
            server.route("/silent", respond: .fault(.silent))
            let fiber = Fiber(server.baseURL) { $0.transport = transport; $0.timeout = 0.2 }
            await expectFiberError({ if case .timeout = $0 { true } else { false } }) { try await fiber.get("/silent") }
        }
    }

    @Test func connectionRefusedIsANetworkErrorIntact() async throws {
        let refusing = RefusingPort()
        let url = "http://127.0.0.1:\(refusing.port)"
        try await withLiveServer { _, transport in
            let fiber = Fiber(url) { $0.transport = transport }
            await expectFiberError({ error in
                guard case .networkError(let underlying as HTTPClientError) = error else { return false }
                return underlying.kind == .transport && underlying.transport?.kind == .connectionRefused
                    && underlying.url == url + "/"
            }) { try await fiber.get("/") }
        }
        withExtendedLifetime(refusing) {}
    }

    @Test func cancellationIsCancelled() async throws {
        try await withLiveServer { server, transport in
            server.route("/silent", respond: .fault(.silent))
            let fiber = Fiber(server.baseURL) { $0.transport = transport }
            let task = Task { try await fiber.get("/silent") }
            try await server.waitForRequests(1)
            task.cancel()
            await expectFiberError({ if case .cancelled = $0 { true } else { false } }) { _ = try await task.value }
        }
    }

    @Test func streamedBody() async throws {
        try await withLiveServer { server, transport in
            server.route("/big", respond: .chunked(["alpha-", "beta-", "gamma"]))
            let collector = InMemoryMetricsCollector()
            let cache = CacheInterceptor()
            let fiber = Fiber(server.baseURL) {
                $0.transport = transport
                $0.interceptors = [cache, MetricsInterceptor(collector: collector)]
            }
            let response = try await fiber.stream(FiberRequest(url: server.url("/big")))
            #expect(response.statusCode == 200 && response.isSuccess)
            var text = ""
            for try await chunk in response.body { text += String(decoding: chunk, as: UTF8.self) }
            #expect(text == "alpha-beta-gamma")
            #expect(await cache.count == 0)  // a streamed body is never cached
            #expect(await collector.metrics.count == 1)
            let again = try await fiber.stream(FiberRequest(url: server.url("/big")))
            #expect(try await again.collect().text == "alpha-beta-gamma")
        }
    }

    @Test func eachInterceptorAlone() async throws {
        try await withLiveServer { server, transport in
            let key = SymmetricKey(size: .bits256)
            let provider = AESGCMEncryptionProvider(key: key)
            let hits = Counter()
            server.route("/auth") { $0.header("Authorization") == "Bearer t1" ? .ok("in") : .status(401) }
            server.route("/flaky") { _ in hits.increment() % 3 == 0 ? .ok("finally") : .status(503) }
            server.route("/cached") { _ in .ok("c\(hits.increment())") }
            server.route("/secret") { request in
                guard let plain = try? provider.decrypt(Data(request.body)),
                      let sealed = try? provider.encrypt(Data("got ".utf8) + plain) else { return .status(400) }
                return .bytes(Array(sealed))
            }
            server.route("/plain") { _ in .ok("plain") }
            func client(_ interceptor: any Interceptor) -> Fiber {
                Fiber(server.baseURL) { $0.transport = transport; $0.interceptors = [interceptor] }
            }

            let store = TokenStore()
            let auth = AuthInterceptor(tokenProvider: { await store.accessToken }, tokenRefresher: { try await store.refresh() })
            #expect(try await client(auth).get("/auth").text == "in")

            let clock = TestClock()
            let retry = RetryInterceptor(maxRetries: 3, clock: clock.fiberClock, random: { 0 })
            #expect(try await client(retry).get("/flaky").text == "finally")
            #expect(clock.sleeps == [.seconds(0.5), .seconds(1)])

            let cache = CacheInterceptor()
            let cached = client(cache)
            let first = try await cached.get("/cached").text
            #expect(try await cached.get("/cached").text == first)

            let collector = TestTraceCollector()
            try await client(LoggingInterceptor(logger: collector.logger())).get("/plain")
            #expect(collector.messages.contains { $0.hasPrefix("[HTTP] [← 200 OK]") })

            let metrics = InMemoryMetricsCollector()
            try await client(MetricsInterceptor(collector: metrics)).get("/plain")
            #expect(await metrics.metrics.first?.responseSize == 5)

            let encrypted = try await client(EncryptionInterceptor(provider: provider)).post("/secret", body: Data("x".utf8))
            #expect(encrypted.text == "got x")

            let frozen = FiberClock(now: { .zero }, sleep: { _, _ in })
            let limited = client(RateLimitInterceptor(maxRequests: 2, perInterval: 60, maxWait: 0, clock: frozen))
            try await limited.get("/plain")
            try await limited.get("/plain")
            await #expect(throws: RateLimitError.exceeded(limit: 2, interval: 60)) { try await limited.get("/plain") }

            let gate = Gate()
            server.route("/slow") { _ in await gate.wait(); return .ok("slow") }
            let deduped = client(DeduplicationInterceptor())
            let before = server.requestCount
            async let a = deduped.get("/slow").text
            async let b = deduped.get("/slow").text
            try await server.waitForRequests(before + 1)
            try await waitUntil { await gate.waiting == 1 }
            await gate.open()
            #expect(try await [a, b] == ["slow", "slow"])
        }
    }
}
