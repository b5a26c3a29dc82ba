import Fiber
import FiberRuntime
import FiberTesting
import Foundation
import Synchronization

/// The demo of the Fiber API: a loopback server in this process, and a client
/// with the recommended pipeline (auth, retry, rate limit, cache, logging,
/// metrics) showing a token refresh, a retry over an injected failure, a
/// cache hit, the rate limiter at work, and the metrics collected.
enum PipelineDemo {
    /// The demo's token store: it starts with an expired token.
    actor TokenStore {
        private(set) var token = "expired-token"
        private(set) var refreshes = 0
        func refresh() { token = "fresh-token-\(refreshes + 1)"; refreshes += 1 }
    }

    static func run() async throws {
        let group = EventLoopGroup(loopCount: 1, name: "pipeline-demo")
        let server = try await TestHTTPServer.start(on: group.loops[0])
        let flakyCalls = Locked(0)
        server.route("/profile") { request in
            (request.header("Authorization") ?? "").hasPrefix("Bearer fresh-token")
                ? .json(#"{"name":"Ada Lovelace","role":"admin"}"#) : .text("token expired", status: 401)
        }
        server.route("/flaky") { _ in
            flakyCalls.withLock { $0 += 1; return $0 } == 1 ? .text("try again", status: 503) : .json(#"{"status":"ok"}"#)
        }
        server.route("/catalog", respond: .json(#"{"items":["fiber","libuv","llhttp","openssl"]}"#))
        server.route("/ping", respond: .ok("pong"))

        let tokens = TokenStore()
        let metrics = InMemoryMetricsCollector()
        let cache = CacheInterceptor(ttl: 60)
        let transport = HTTPTransport(eventLoopGroup: group)
        let fiber = Fiber(server.baseURL) {
            $0.transport = transport
            $0.interceptors = [
                AuthInterceptor(tokenProvider: { await tokens.token }, tokenRefresher: { await tokens.refresh() }),
                RetryInterceptor(maxRetries: 2, baseDelay: 0.05),
                RateLimitInterceptor(maxRequests: 5, perInterval: 1),
                cache,
                LoggingInterceptor(logger: DemoLogger()),
                MetricsInterceptor(collector: metrics),
            ]
        }
        print("test server on \(server.baseURL); pipeline: auth → retry → rate limit → cache → logging → metrics")

        let profile = try await fiber.get("/profile")
        print("• auth: GET /profile → \(profile.statusCode) \(profile.text) (token refreshed \(await tokens.refreshes) time)")

        let flaky = try await fiber.get("/flaky")
        print("• retry: GET /flaky → \(flaky.statusCode) after the server's injected 503 (\(flakyCalls.withLock { $0 }) calls reached it)")

        _ = try await fiber.get("/catalog")
        let before = server.requestCount
        let cached = try await fiber.get("/catalog")
        print("• cache: second GET /catalog → \(cached.statusCode) \(cached.text); the server saw \(server.requestCount - before) more requests")

        let start = ContinuousClock.now
        for _ in 1...6 { _ = try await fiber.get("/ping") }
        print("• rate limit: 6 more requests under a 5-per-second bucket took \(milliseconds(.now - start)) ms (the bucket made them wait)")

        let collected = await metrics.metrics
        let failed = collected.filter { !$0.success }.map { "\($0.statusCode)" }
        print("• metrics: \(collected.count) requests went past the cache to the network, \(failed.count) failed (\(failed.joined(separator: ", "))); "
            + "success rate \(String(format: "%.0f", await metrics.successRate * 100)) %, average \(String(format: "%.2f", await metrics.averageDurationMs)) ms")

        await transport.shutdown()
        await server.shutdown()
        try await group.shutdown()
    }

    static func milliseconds(_ duration: Duration) -> Int {
        Int(duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000)
    }
}

/// The logging interceptor's lines, indented under the demo's own.
struct DemoLogger: FiberLogger {
    func isLogging(_ level: FiberLogLevel) -> Bool { level >= .info }
    func log(_ level: FiberLogLevel, _ message: String, metadata: [String: String]) {
        guard isLogging(level) else { return }
        print("    log: \(message)")
    }
}
