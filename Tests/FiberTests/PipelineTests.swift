import Crypto
import Fiber
import FiberRuntime
import FiberTesting
import Foundation
import Testing

/// The guide's recommended pipeline (Auth, Retry, RateLimit, Cache,
/// Encryption, Logging, Metrics), over the mock and over the real transport.
struct RecommendedPipeline {
    let store = TokenStore()
    let clock = TestClock()
    let provider = AESGCMEncryptionProvider(key: SymmetricKey(size: .bits256))
    let collector = TestTraceCollector()
    let metrics = InMemoryMetricsCollector()
    let cache: CacheInterceptor
    let interceptors: [any Interceptor]

    init(rateLimit: Int = 10_000) {
        let store = store
        cache = CacheInterceptor(ttl: 60, maxEntries: 100, clock: clock.fiberClock)
        interceptors = [
            AuthInterceptor(tokenProvider: { await store.accessToken }, tokenRefresher: { _ = try await store.refresh() }),
            RetryInterceptor(maxRetries: 2, clock: clock.fiberClock, random: { 0 }),
            RateLimitInterceptor(maxRequests: rateLimit, perInterval: 60, maxWait: 0, clock: clock.fiberClock),
            cache,
            EncryptionInterceptor(provider: provider),
            LoggingInterceptor(logger: collector.logger()),
            MetricsInterceptor(collector: metrics),
        ]
    }

    /// What a server behind this pipeline does: 401 unless `Bearer t1`, 503 on
    /// the first try of `/flaky`, bodies encrypted both ways.
    func answer(path: String, authorization: String?, body: Data?, attempt: Int) -> (Int, Data) {
        guard authorization == "Bearer t1" else { return (401, Data()) }
        if path == "/flaky", attempt == 1 { return (503, Data()) }
        let plain = body.flatMap { try? provider.decrypt($0) } ?? Data()
        let reply = Data("\(path):".utf8) + plain
        return (200, (try? provider.encrypt(reply)) ?? Data())
    }
}

@Suite struct PipelineTests {
    /// Built-ins run in the chain on their caller's executor (`InlineInterceptor.run`); called
    /// through the protocol's `intercept(_:next:)`, as a custom interceptor would call them,
    /// the same pipeline must behave the same.
    @Test(arguments: [false, true])
    func recommendedOrderOverMock(throughTheProtocol: Bool) async throws {
        let pipeline = RecommendedPipeline()
        let attempts = Locked<[String: Int]>([:])
        let mock = MockTransport()
        mock.stub { request in
            let path = request.url?.path ?? ""
            let auth = request.value(forHTTPHeaderField: "Authorization")
            let attempt = auth == "Bearer t1" ? attempts.withLock { $0[path, default: 0] += 1; return $0[path] ?? 0 } : 0
            let (status, body) = pipeline.answer(path: path, authorization: auth, body: request.httpBody, attempt: attempt)
            return StubResponse(statusCode: status, body: body)
        }
        let interceptors = throughTheProtocol
            ? pipeline.interceptors.map { interceptor in
                AnyInterceptor(interceptor.name) { request, next in try await interceptor.intercept(request, next: next) }
            }
            : pipeline.interceptors
        let fiber = Fiber("https://api.example.com") { $0.interceptors = interceptors; $0.transport = mock }
        try await exercise(fiber, pipeline)
        #expect(mock.requests.count == 5)  // 401 + replay, a 503 and its retry, a POST; the second GET is a hit
    }

    @Test func recommendedOrderOverRealTransport() async throws {
        let pipeline = RecommendedPipeline()
        try await withLiveServer { server, transport in
            let attempts = Locked<[String: Int]>([:])
            server.setDefaultHandler { request in
                let authorized = request.header("Authorization") == "Bearer t1"
                let attempt = authorized ? attempts.withLock { $0[request.path, default: 0] += 1; return $0[request.path] ?? 0 } : 0
                let (status, body) = pipeline.answer(path: request.path, authorization: request.header("Authorization"),
                                                     body: request.body.isEmpty ? nil : Data(request.body), attempt: attempt)
                return .bytes(Array(body), status: status)
            }
            let fiber = Fiber(server.baseURL) { $0.interceptors = pipeline.interceptors; $0.transport = transport }
            try await exercise(fiber, pipeline)
            #expect(server.requestCount == 5)
        }
    }

    private func exercise(_ fiber: Fiber, _ pipeline: RecommendedPipeline) async throws {
        #expect(try await fiber.get("/profile").text == "/profile:")  // 401, one refresh, replayed
        #expect(try await fiber.get("/profile").text == "/profile:")  // from the cache
        #expect(try await fiber.get("/flaky").text == "/flaky:")      // 503, retried after 0.5 s (virtual)
        #expect(try await fiber.post("/echo", body: Data("hi".utf8)).text == "/echo:hi")
        #expect(await pipeline.store.refreshes == 1)
        #expect(pipeline.clock.sleeps == [.seconds(0.5)])
        // Metrics is innermost: it saw every exchange, the cache hit excepted.
        let statuses = await pipeline.metrics.metrics.map(\.statusCode)
        #expect(statuses == [401, 200, 503, 200, 200])
        // Logging sits inside Encryption: it logged ciphertext sizes, never the plaintext reply.
        #expect(pipeline.collector.messages.filter { $0.contains("[→") }.count == 5)
    }

    /// 1,000 concurrent requests share one refresh, one bucket and one cache, over the real transport.
    @Test func thousandConcurrentRequestsOverRealTransport() async throws {
        let pipeline = RecommendedPipeline(rateLimit: 1500)
        try await withLiveServer { server, transport in
            server.setDefaultHandler { request in
                let (status, body) = pipeline.answer(path: request.path, authorization: request.header("Authorization"),
                                                     body: nil, attempt: 2)
                return .bytes(Array(body), status: status)
            }
            let fiber = Fiber(server.baseURL) { $0.interceptors = pipeline.interceptors; $0.transport = transport }
            let results = await withTaskGroup(of: String.self) { group in
                for i in 0..<1000 {
                    group.addTask {
                        do { return try await fiber.get("/item/\(i % 10)").text } catch is RateLimitError { return "limited" } catch {
                            return "error: \(error)"
                        }
                    }
                }
                return await group.reduce(into: [String: Int]()) { $0[$1.hasPrefix("/item/") ? "ok" : $1, default: 0] += 1 }
            }
            #expect(await pipeline.store.refreshes == 1)
            // Every attempt takes a token (RateLimit is below Auth, so a replay takes one too):
            // 1,500 tokens for up to 2,000 attempts. Each request that passes its first
            // attempt and its replay succeeds, so at least 500 do, and the rest are limited.
            #expect((results["ok"] ?? 0) + (results["limited"] ?? 0) == 1000, "\(results)")
            #expect((results["ok"] ?? 0) >= 500, "\(results)")
            #expect(await pipeline.cache.count <= 10)
        }
    }
}
