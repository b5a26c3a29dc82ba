import Crypto
import Fiber
import FiberRuntime
import FiberTesting
import Foundation
import Testing

/// The README's and the guide's "Writing interceptors" snippets, as written.
@Suite struct ReadmeInterceptorTests {
    struct APIKeyInterceptor: Interceptor {
        let name = "apiKey"
        let key: String

        func intercept(
            _ request: FiberRequest,
            next: @Sendable (FiberRequest) async throws -> FiberResponse
        ) async throws -> FiberResponse {
            try await next(request.header("X-API-Key", key))
        }
    }

    enum OfflineStore {
        static let entries = Locked<[URL: Data]>([:])
        static func get(_ url: URL) -> Data? { entries.withLock { $0[url] } }
    }

    @Test func closureInterceptor() async throws {
        let seen = Counter()
        let timing = AnyInterceptor("timing") { request, next in
            let start = Date()
            let response = try await next(request)
            print("Request took \(Date().timeIntervalSince(start))s")
            print("[\(request.httpMethod.rawValue) \(request.url.path)] \(Date().timeIntervalSince(start))s")
            seen.increment()
            return response
        }
        let (fiber, mock) = mockFiber([timing])
        mock.stubAll(.ok())
        try await fiber.get("/a")
        #expect(seen.count == 1 && timing.name == "timing")
    }

    @Test func structInterceptor() async throws {
        let (fiber, mock) = mockFiber([APIKeyInterceptor(key: "k-1")])
        mock.stubAll(.ok())
        try await fiber.get("/a")
        #expect(mock.lastRequest?.value(forHTTPHeaderField: "X-API-Key") == "k-1")
    }

    @Test func shortCircuit() async throws {
        let cachedURL = URL(string: "https://api.example.com/offline")!
        OfflineStore.entries.withLock { $0[cachedURL] = Data("stored".utf8) }
        let cached = AnyInterceptor("offlineCache") { request, next in
            if let cached = OfflineStore.get(request.url) {
                return FiberResponse(data: cached, statusCode: 200, request: request)
            }
            return try await next(request)
        }
        let (fiber, mock) = mockFiber([cached])
        mock.stubAll(.ok(body: "network"))
        #expect(try await fiber.get("/offline").text == "stored")
        #expect(mock.requests.isEmpty)
        #expect(try await fiber.get("/online").text == "network")
        #expect(mock.requests.count == 1)
    }

    @Test func commonPatterns() async throws {
        enum AppError: Error { case maintenanceMode }
        enum AppState { static let isInMaintenance = Locked(false) }
        struct AnyCodable: Decodable {
            let rawData: Data
            init(from decoder: any Decoder) throws {
                // Re-encode whatever JSON value is here.
                let container = try decoder.singleValueContainer()
                if let object = try? container.decode([String: String].self) {
                    rawData = try JSONEncoder().encode(object)
                } else {
                    rawData = try JSONEncoder().encode(try container.decode([[String: Int]].self))
                }
            }
        }
        let addCorrelationID = AnyInterceptor("correlationID") { request, next in
            let modified = request.header("X-Correlation-ID", UUID().uuidString)
            return try await next(modified)
        }
        let unwrapEnvelope = AnyInterceptor("unwrap") { request, next in
            let response = try await next(request)
            // Unwrap { "data": ... } envelope
            struct Envelope: Decodable { let data: AnyCodable }
            if let envelope = try? JSONDecoder().decode(Envelope.self, from: response.data) {
                return FiberResponse(
                    data: envelope.data.rawData,
                    statusCode: response.statusCode,
                    headers: response.headers,
                    request: response.request,
                    duration: response.duration,
                    traceID: response.traceID
                )
            }
            return response
        }
        let maintenanceMode = AnyInterceptor("maintenance") { request, next in
            if AppState.isInMaintenance.withLock({ $0 }) {
                throw AppError.maintenanceMode
            }
            return try await next(request)
        }
        let (fiber, mock) = mockFiber([maintenanceMode, addCorrelationID, unwrapEnvelope])
        mock.stubAll(.ok(body: #"{"data":[{"id":7}]}"#))
        let response = try await fiber.get("/wrapped")
        #expect(response.text == #"[{"id":7}]"#)
        #expect(mock.lastRequest?.value(forHTTPHeaderField: "X-Correlation-ID")?.count == 36)

        AppState.isInMaintenance.withLock { $0 = true }
        await #expect(throws: AppError.self) { try await fiber.get("/wrapped") }
        #expect(mock.requests.count == 1)
    }

    @Test func simpleRetryCallsNextTwice() async throws {
        let simpleRetry = AnyInterceptor("simpleRetry") { request, next in
            do {
                return try await next(request)
            } catch {
                // One retry on any failure
                return try await next(request)
            }
        }
        let (fiber, mock) = mockFiber([simpleRetry])
        let calls = Counter()
        mock.stub { _ in calls.increment() == 1 ? .failure(URLError(.timedOut)) : .ok(body: "second") }
        #expect(try await fiber.get("/flaky").text == "second")
        #expect(mock.requests.count == 2)
    }

    @Test func firstIsOutermost() async throws {
        let order = Locked<[String]>([])
        func recorder(_ name: String) -> AnyInterceptor {
            AnyInterceptor(name) { request, next in
                order.withLock { $0.append("→\(name)") }
                let response = try await next(request)
                order.withLock { $0.append("←\(name)") }
                return response
            }
        }
        let (fiber, mock) = mockFiber(["auth", "retry", "rateLimit", "cache", "logging", "metrics"].map(recorder))
        mock.stubAll(.ok())
        try await fiber.get("/")
        #expect(order.withLock { $0 } == ["→auth", "→retry", "→rateLimit", "→cache", "→logging", "→metrics",
                                          "←metrics", "←logging", "←cache", "←rateLimit", "←retry", "←auth"])
    }

    /// The built-ins' constructors exactly as the README and guide write them.
    @Test func builtInConstructorsAsDocumented() async throws {
        actor TokenStore {
            var accessToken = "t0"
            @discardableResult
            func refresh() async throws -> String { accessToken = "t1"; return accessToken }
        }
        enum Keychain { static let apiKey = "key" }
        let tokenStore = TokenStore()
        let auth = AuthInterceptor(
            tokenProvider: { await tokenStore.accessToken },
            tokenRefresher: { try await tokenStore.refresh() },  // optional
            headerName: "Authorization",     // default
            headerPrefix: "Bearer ",         // default
            isUnauthorized: { $0.statusCode == 401 }  // default
        )
        let apiKeyAuth = AuthInterceptor(
            tokenProvider: { Keychain.apiKey },
            headerName: "X-API-Key",
            headerPrefix: ""                    // no prefix
        )
        let retry = RetryInterceptor(
            maxRetries: 3,
            baseDelay: 0.5,        // seconds
            maxDelay: 30,
            retryableStatusCodes: [408, 429, 500, 502, 503, 504],
            retryableMethods: [.get, .head, .options, .put, .delete],
            shouldRetry: { error in
                (error as? URLError)?.code == .timedOut
            }
        )
        #expect(retry.retryableStatusCodes == [408, 429, 500, 502, 503, 504])
        #expect(retry.retryableMethods == [.get, .head, .options, .put, .delete])
        let cache = CacheInterceptor(
            ttl: 300,           // 5 minutes
            maxEntries: 100,
            cacheableMethods: [.get, .head]
        )
        await cache.clear()
        await cache.evict(url: "/config")
        let logging = LoggingInterceptor(logger: SwiftLogFiberLogger(subsystem: "com.myapp"))
        let verbose = LoggingInterceptor(
            logger: SwiftLogFiberLogger(subsystem: "com.myapp"),
            logBody: false          // default — set to true for debugging
        )
        let collector = InMemoryMetricsCollector()
        let metrics = MetricsInterceptor(collector: collector)
        let key = SymmetricKey(size: .bits256)
        let encryption = EncryptionInterceptor(
            provider: AESGCMEncryptionProvider(key: key),
            encryptRequest: true,
            decryptResponse: true
        )
        let rateLimit = RateLimitInterceptor(
            maxRequests: 60,
            perInterval: 60.0,   // 60 requests per minute
            maxWait: 30.0        // wait up to 30s for a slot, then throw
        )
        let interceptors: [any Interceptor] = [auth, apiKeyAuth, retry, cache, logging, verbose, metrics, encryption, rateLimit]
        #expect(interceptors.map(\.name) == ["auth", "auth", "retry", "cache", "logging", "logging", "metrics", "encryption",
                                             "rateLimit"])

        // The composed client of "Composing Interceptors".
        let mock = MockTransport()
        mock.stubAll(.ok())
        let fiber = Fiber("https://api.example.com") {
            $0.interceptors = [
                auth,         // 1st: inject token
                retry,        // 2nd: retry on failure
                rateLimit,    // 3rd: throttle
                cache,        // 4th: return cached if available
                logging,      // 5th: log the final request/response
                metrics,      // 6th: collect timing
            ]
            $0.transport = mock
        }
        try await fiber.get("/users")
        #expect(mock.lastRequest?.value(forHTTPHeaderField: "Authorization") == "Bearer t0")
        #expect(await collector.metrics.count == 1)
    }
}
