import Fiber
import FiberRuntime
import FiberTesting
import Foundation
import Testing

/// What one request overrides of its client, through `Fiber` over real loopback
/// sockets: retries, interceptors, the cache, the decoder.
@Suite("Per-request overrides and retry decisions", .timeLimit(.minutes(1)))
struct PerRequestOverrideTests {
    /// Appends its tag to `X-Path`, to show which interceptors a request went through, in order.
    struct TagInterceptor: Interceptor {
        let name: String
        func intercept(_ request: FiberRequest, next: @escaping InterceptorNext) async throws -> FiberResponse {
            let path = request.headers["X-Path"].map { $0 + "," + name } ?? name
            return try await next(request.header("X-Path", path))
        }
    }

    /// A server whose `/flaky` answers 503 (with `Retry-After: 0`) until the `succeedOn`-th request.
    static func flaky(_ server: TestHTTPServer, succeedOn: Int, hits: Counter) {
        server.route(prefix: "/flaky") { _ in
            hits.increment() >= succeedOn ? .ok("fine") : TestResponse.status(503).withHeader("Retry-After", "0")
        }
    }

    @Test func retryNoneAndRetryCountOverrideTheClient() async throws {
        try await withLiveServer { server, transport in
            let hits = Counter()
            Self.flaky(server, succeedOn: 3, hits: hits)
            let retrying = Fiber(server.baseURL) {
                $0.transport = transport
                $0.interceptors = [RetryInterceptor(maxRetries: 5, baseDelay: 0.01)]
            }
            let once = try await retrying.send(retrying.request(.get, "/flaky").retry(.none))
            #expect(once.statusCode == 503 && hits.count == 1)

            // A client without a RetryInterceptor: the request brings its own.
            let plain = Fiber(server.baseURL) { $0.transport = transport }
            let retried = try await plain.send(plain.request(.get, "/flaky").retry(.retry(count: 2)))
            #expect(retried.statusCode == 200 && hits.count == 3)
            #expect(try await plain.send(plain.request(.get, "/flaky")).statusCode == 200)
        }
    }

    @Test func aPolicySeesEachOutcomeAndDecides() async throws {
        try await withLiveServer { server, transport in
            let hits = Counter()
            server.route(prefix: "/orders") { _ in hits.increment() < 3 ? .status(500) : .status(418) }
            let fiber = Fiber(server.baseURL) { $0.transport = transport }
            struct Teapot: Error {}
            let seen = Locked<[Int]>([])
            let policy = RetryRule { request, outcome, retryCount in
                seen.withLock { $0.append(retryCount) }
                #expect(request.httpMethod == .post)
                switch outcome {
                case .success(let response) where response.statusCode == 500: return .retryWithDelay(0.01)
                case .success(let response) where response.statusCode == 418: return .doNotRetryWithError(Teapot())
                default: return .doNotRetry
                }
            }
            // A POST, which the rules would never retry: the policy decides.
            await expectFiberError({ if case .interceptor("retry", _ as Teapot) = $0 { true } else { false } }) {
                try await fiber.send(fiber.request(.post, "/orders").retry(.policy(policy, maxRetries: 5)))
            }
            #expect(hits.count == 3 && seen.withLock { $0 } == [0, 1, 2])

            // The client's own policy, bounded by maxRetries.
            let bounded = Fiber(server.baseURL) {
                $0.transport = transport
                $0.interceptors = [RetryInterceptor(maxRetries: 1, policy: RetryRule { _, _, _ in .retry })]
            }
            let before = hits.count
            _ = try await bounded.send(bounded.request(.post, "/orders"))
            #expect(hits.count == before + 2)
        }
    }

    @Test func backoffAndResultDelays() {
        let backoff = ExponentialBackoff(baseDelay: 0.5, backoffBase: 2, maxDelay: 3)
        #expect([0, 1, 2, 3, 9].map(backoff.delay(for:)) == [0.5, 1, 2, 3, 3])
        #expect(RetryResult.retryWithExponentialBackoff(backoff).delay(forRetry: 1) == 1)
        #expect(RetryResult.retry.delay(forRetry: 4) == 0 && RetryResult.retryWithDelay(-1).delay(forRetry: 0) == 0)
        #expect(RetryResult.doNotRetry.delay(forRetry: 0) == nil)
    }

    @Test func interceptorsAreReplacedOrAddedForOneRequest() async throws {
        try await withLiveServer { server, transport in
            server.route("GET", "/x") { _ in .ok() }
            let fiber = Fiber(server.baseURL) {
                $0.transport = transport
                $0.interceptors = [TagInterceptor(name: "client")]
            }
            _ = try await fiber.send(fiber.request(.get, "/x"))
            #expect(server.lastRequest?.header("X-Path") == "client")
            _ = try await fiber.send(fiber.request(.get, "/x").interceptors([TagInterceptor(name: "own")]))
            #expect(server.lastRequest?.header("X-Path") == "own")
            _ = try await fiber.send(fiber.request(.get, "/x").interceptors([]))
            #expect(server.lastRequest?.header("X-Path") == nil)
            _ = try await fiber.send(fiber.request(.get, "/x").addingInterceptors([TagInterceptor(name: "added")]))
            #expect(server.lastRequest?.header("X-Path") == "client,added")
            // Streamed responses take the same path.
            _ = try await fiber.stream(fiber.request(.get, "/x").addingInterceptors([TagInterceptor(name: "s")])).body.collect()
            #expect(server.lastRequest?.header("X-Path") == "client,s")
        }
    }

    /// The same switches over every storage the cache can keep entries in.
    @Test(arguments: CacheStorageKind.allCases) func aCachePolicyReadsAndWritesIndependently(_ kind: CacheStorageKind) async throws {
        let directory = TemporaryDirectory()
        // Virtual time for freshness: a run that waits its turn on a busy machine does not age the entries.
        let clock = TestClock()
        let cache = try kind.cache(clock: clock.fiberClock, in: directory)
        try await withLiveServer { server, transport in
            let hits = Counter()
            server.route(prefix: "/c") { _ in .text("v\(hits.increment())").withHeader("Cache-Control", "max-age=3600") }
            let fiber = Fiber(server.baseURL) {
                $0.transport = transport
                $0.interceptors = [cache]
            }
            func text(_ request: FiberRequest) async -> String { (try? await fiber.send(request).text) ?? "failed" }
            #expect(await text(fiber.request(.get, "/c/a")) == "v1")
            #expect(await text(fiber.request(.get, "/c/a")) == "v1")
            // Not read, but written: the network answers and the new response is kept.
            #expect(await text(fiber.request(.get, "/c/a").cachePolicy(CachePolicy(useCache: false))) == "v2")
            #expect(await text(fiber.request(.get, "/c/a")) == "v2")
            // Read, not written: a miss goes to the network and nothing is kept.
            #expect(await text(fiber.request(.get, "/c/b").cachePolicy(CachePolicy(storeCache: false))) == "v3")
            #expect(await text(fiber.request(.get, "/c/b")) == "v4")
            #expect(await text(fiber.request(.get, "/c/b").cachePolicy(CachePolicy(storeCache: false))) == "v4")
            // Neither.
            #expect(await text(fiber.request(.get, "/c/b").cachePolicy(.bypass)) == "v5")
            // An expiry of the request's own replaces the server's hour.
            let soon = Date().addingTimeInterval(100)
            #expect(await text(fiber.request(.get, "/c/e").cachePolicy(CachePolicy(expireTime: soon))) == "v6")
            clock.advance(by: .seconds(50))
            #expect(await text(fiber.request(.get, "/c/e")) == "v6")
            clock.advance(by: .seconds(100))
            #expect(await text(fiber.request(.get, "/c/e")) == "v7")
            #expect(hits.count == 7)
        }
    }

    @Test func aDecoderForOneRequest() async throws {
        struct Event: Decodable, Sendable { let when: Date }
        try await withLiveServer { server, transport in
            server.route("GET", "/event") { _ in .json(#"{"when":"2026-01-02T03:04:05Z"}"#) }
            let fiber = Fiber(server.baseURL) { $0.transport = transport }
            await expectFiberError({ $0.kind == .decodingError }) {
                _ = try await fiber.send(fiber.request(.get, "/event")).decode(Event.self)
            }
            let iso = JSONDecoder()
            iso.dateDecodingStrategy = .iso8601
            let event = try await fiber.send(fiber.request(.get, "/event").decoder(iso)).decode(Event.self)
            #expect(event.when == Date(timeIntervalSince1970: 1_767_323_045))
            let chained = await fiber.chain(fiber.request(.get, "/event").decoder(iso)).responseDecodable(of: Event.self)
            #expect(chained.value?.when == event.when)
        }
    }

    @Test func errorsCompareByWhatHappened() async throws {
        let response = FiberResponse.empty
        #expect(FiberError.timeout == .timeout && FiberError.cancelled != .timeout)
        #expect(FiberError.httpError(statusCode: 404, data: Data("a".utf8), response: response)
            == .httpError(statusCode: 404, data: Data(), response: response))
        #expect(FiberError.httpError(statusCode: 404, data: Data(), response: response)
            != .httpError(statusCode: 500, data: Data(), response: response))
        struct A: Error {}
        struct B: Error {}
        #expect(FiberError.networkError(underlying: A()) == .networkError(underlying: B()))
        #expect(FiberError.interceptor(name: "auth", underlying: A()) != .interceptor(name: "retry", underlying: A()))
        #expect(FiberError.Kind.allCases.count == 8)

        let unreachable = FiberError.networkError(underlying: TransportError(.unreachable, operation: "connect", codeName: "ENETUNREACH"))
        let noName = FiberError.networkError(underlying: TransportError(.dnsFailure, operation: "resolve", codeName: "EAI_NONAME"))
        let tryAgain = FiberError.networkError(underlying: TransportError(.dnsFailure, operation: "resolve", codeName: "EAI_AGAIN"))
        #expect(unreachable.isOffline && tryAgain.isOffline && !noName.isOffline && !FiberError.timeout.isOffline)
        #expect(unreachable.isTransient && FiberError.timeout.isTransient && !FiberError.cancelled.isTransient)

        // A real refused connection is transient, not offline; a missing upload file is a transfer failure.
        let listener = try await SocketListener.listen(host: "127.0.0.1", port: 0)
        let port = listener.port
        await listener.close()
        let fiber = Fiber("http://127.0.0.1:\(port)")
        await expectFiberError({ $0.isTransient && !$0.isOffline && $0.transportError?.kind == .connectionRefused }) {
            _ = try await fiber.get("/")
        }
        try await withLiveServer { server, transport in
            server.route("PUT", "/f") { _ in .ok() }
            let live = Fiber(server.baseURL) { $0.transport = transport }
            await expectFiberError({ $0.isTransferFailure }) {
                _ = try await live.upload("/f", fileAt: "/nonexistent-\(UUID().uuidString)")
            }
        }
    }
}
