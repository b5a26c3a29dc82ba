import Fiber
import FiberRuntime
import FiberTesting
import Testing

/// A transport made with an HTTP client configuration that cannot work fails
/// each request with the client's `ConfigurationError`, before anything is sent.
@Suite("Transport configuration", .timeLimit(.minutes(1)))
struct TransportConfigurationValidationTests {
    @Test func aTransportWithAnUnworkableConfigurationFailsRequestsWithTheConfigurationError() async throws {
        let server = try await TestHTTPServer.start()
        server.route("/", respond: .ok("hello"))
        var configuration = HTTPClient.Configuration()
        configuration.streamHighWatermark = 0
        let fiber = Fiber(server.url("")) { $0.transport = HTTPTransport(configuration: configuration) }
        for streamed in [false, true] {
            do {
                if streamed { _ = try await fiber.stream(FiberRequest(url: server.url("/"))) } else { _ = try await fiber.get("/") }
                Issue.record("an unworkable configuration must fail the request")
            } catch FiberError.networkError(let underlying as HTTPClient.ConfigurationError) {
                #expect(underlying.setting == "streamHighWatermark")
            }
        }
        #expect(server.connectionCount == 0)
        await server.shutdown()
    }
}
