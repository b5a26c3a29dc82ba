import Fiber
import FiberTesting
import FiberRuntime
import Foundation
import Testing

/// The README's "Injectable Defaults" section, as written.
///
/// The startup override is compiled as the README writes it but run with
/// values no other test observes: suites run in parallel, and the README's
/// values (`"NET"`, another JSON type, lower-case trace IDs) would change what
/// concurrently created components do. Each of those values is tested per
/// component instead (here and in the Logging tests).
@Suite struct FiberDefaultsTests {
    /// The README's override at app startup (not called: see above).
    static func overrideAtStartup() {
        // Override globally at app startup
        FiberDefaults.shared = FiberDefaults(
            jitterFraction: 0.5,
            exponentialBackoffBase: 3.0,
            loggingSystemName: "NET",
            logBodyTruncationLimit: 2000,
            rateLimitSleepIncrement: 0.2,
            jsonContentType: "application/vnd.api+json",
            traceIDGenerator: { UUID().uuidString.lowercased() },
            webSocketDefaultCloseCode: 1001
        )
    }

    @Test func tableValues() {
        let d = FiberDefaults()
        #expect(d.jitterFraction == 0.25 && d.exponentialBackoffBase == 2.0)
        #expect(d.loggingSystemName == "HTTP" && d.logBodyTruncationLimit == 1000)
        #expect(d.rateLimitSleepIncrement == 0.1 && d.jsonContentType == "application/json")
        #expect(UUID(uuidString: d.traceIDGenerator()) != nil && d.webSocketDefaultCloseCode == 1000)
    }

    @Test func globalOverrideReachesComponentsCreatedAfter() async throws {
        let saved = FiberDefaults.shared
        defer { FiberDefaults.shared = saved }
        var changed = saved
        changed.rateLimitSleepIncrement = 0.3
        changed.webSocketDefaultCloseCode = 1001
        FiberDefaults.shared = changed
        #expect(FiberDefaults.shared.webSocketDefaultCloseCode == 1001)
        let tolerances = Locked<[Duration?]>([])
        let clock = FiberClock(now: { .zero }, sleep: { _, tolerance in tolerances.withLock { $0.append(tolerance) } })
        let rateLimit = RateLimitInterceptor(maxRequests: 1, perInterval: 10, maxWait: 60, clock: clock)  // reads shared now
        FiberDefaults.shared = saved
        let (fiber, mock) = mockFiber([rateLimit])
        mock.stubAll(.ok())
        try await fiber.get("/")
        try await fiber.get("/")
        #expect(tolerances.withLock { $0 } == [.seconds(0.3)])
    }

    @Test func readmeValuesPerComponent() async throws {
        let readme = FiberDefaults(
            jitterFraction: 0.5, exponentialBackoffBase: 3.0, loggingSystemName: "NET", logBodyTruncationLimit: 2000,
            rateLimitSleepIncrement: 0.2, jsonContentType: "application/vnd.api+json",
            traceIDGenerator: { UUID().uuidString.lowercased() }, webSocketDefaultCloseCode: 1001)
        let retry = RetryInterceptor(maxRetries: 1, defaults: readme)
        #expect(retry.backoff.multiplier == 3.0 && retry.backoff.jitterFraction == 0.5)
        let request = FiberRequest(url: "https://api.example.com/").jsonBody(["a": 1], defaults: readme)
        #expect(request.headers["Content-Type"] == "application/vnd.api+json")
        let collector = TestTraceCollector()
        let mock = MockTransport()
        mock.stubAll(.ok())
        let fiber = Fiber("https://api.example.com") {
            $0.defaults = readme
            $0.transport = mock
            $0.interceptors = [LoggingInterceptor(logger: collector.logger(), defaults: readme)]
        }
        let response = try await fiber.get("/")
        #expect(response.traceID == response.traceID.lowercased() && UUID(uuidString: response.traceID) != nil)
        #expect(collector.messages.first?.hasPrefix("[NET] ") == true)
    }

    @Test func perComponentAndBuilder() async throws {
        // Or per-component
        let retry = RetryInterceptor(
            maxRetries: 3,
            defaults: FiberDefaults(exponentialBackoffBase: 3.0)
        )
        #expect(retry.backoff.multiplier == 3.0 && retry.backoff.jitterFraction == 0.25)

        // Or via the builder
        let mock = MockTransport()
        mock.stubAll(.ok())
        let fiber = Fiber("https://api.example.com") {
            $0.defaults = FiberDefaults(jsonContentType: "application/x-json", traceIDGenerator: { "custom-\(Date())" })
            $0.transport = mock
        }
        let response = try await fiber.post("/x", body: ["a": "b"])
        #expect(response.traceID.hasPrefix("custom-"))
        #expect(mock.lastRequest?.value(forHTTPHeaderField: "Content-Type") == "application/x-json")
    }
}
