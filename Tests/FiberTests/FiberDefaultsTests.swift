import Fiber
import FiberTesting
import Foundation
import Testing

/// The README's "Injectable Defaults" section. The global override is tested
/// in one test that restores it, and nothing else here reads `shared` while it runs.
@Suite(.serialized) struct FiberDefaultsTests {
    @Test func tableValues() {
        let d = FiberDefaults()
        #expect(d.jitterFraction == 0.25 && d.exponentialBackoffBase == 2.0)
        #expect(d.loggingSystemName == "HTTP" && d.logBodyTruncationLimit == 1000)
        #expect(d.rateLimitSleepIncrement == 0.1 && d.jsonContentType == "application/json")
        #expect(UUID(uuidString: d.traceIDGenerator()) != nil && d.webSocketDefaultCloseCode == 1000)
    }

    @Test func globalOverride() async throws {
        let saved = FiberDefaults.shared
        defer { FiberDefaults.shared = saved }
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
        let retry = RetryInterceptor(maxRetries: 1)
        #expect(retry.backoff.multiplier == 3.0 && retry.backoff.jitterFraction == 0.5)
        let request = FiberRequest(url: "https://api.example.com/").jsonBody(["a": 1])
        #expect(request.headers["Content-Type"] == "application/vnd.api+json")
        let collector = TestTraceCollector()
        let (fiber, mock) = mockFiber([LoggingInterceptor(logger: collector.logger())])
        mock.stubAll(.ok())
        let response = try await fiber.get("/")
        #expect(response.traceID == response.traceID.lowercased())
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
