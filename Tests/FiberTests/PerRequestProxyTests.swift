import Fiber
import FiberRuntime
import FiberTesting
import Foundation
import Testing

/// `FiberRequest.proxy(_:)` without a proxy process: a configuration that cannot
/// work fails the request before anything runs, and what a request chose reaches
/// the transport as `TransportRequest.proxy`. (Requests through real proxies:
/// `PerRequestProxyInteropTests`.)
@Suite(.timeLimit(.minutes(1)))
struct PerRequestProxyTests {
    /// Counts the requests that reached it.
    struct CountingInterceptor: Interceptor {
        let name = "counting"
        let seen: Counter
        func intercept(_ request: FiberRequest, next: @escaping InterceptorNext) async throws -> FiberResponse {
            seen.increment()
            return try await next(request)
        }
    }

    /// The `Fiber.ConfigurationError` that sending `request` fails with.
    static func configurationError(_ fiber: Fiber, _ request: FiberRequest,
                                   sourceLocation: SourceLocation = #_sourceLocation) async -> Fiber.ConfigurationError? {
        do {
            _ = try await fiber.send(request)
            Issue.record("expected a configuration error", sourceLocation: sourceLocation)
        } catch FiberError.networkError(let underlying as Fiber.ConfigurationError) {
            return underlying
        } catch {
            Issue.record("expected FiberError.networkError(ConfigurationError), got \(error)", sourceLocation: sourceLocation)
        }
        return nil
    }

    @Test func aProxyThatCannotWorkFailsTheRequestBeforeAnyInterceptorOrRetry() async throws {
        try await withLiveServer { server, transport in
            server.route("/hello", respond: .ok("hello"))
            let seen = Counter()
            let fiber = Fiber(server.baseURL) {
                $0.transport = transport
                $0.interceptors = [RetryInterceptor(maxRetries: 3, baseDelay: 0.01), CountingInterceptor(seen: seen)]
            }
            let wrongScheme = await Self.configurationError(fiber, fiber.request(.get, "/hello").proxy(.url("ftp://me:pa55word@proxy:21")))
            #expect(wrongScheme?.setting == "FiberRequest.proxy")
            #expect(wrongScheme?.reason.contains("ftp") == true && wrongScheme?.reason.contains("pa55word") == false,
                    "\(String(describing: wrongScheme))")
            let tlsProxy = await Self.configurationError(fiber, fiber.request(.get, "/hello").proxy(.url("https://proxy:443")))
            #expect(tlsProxy?.reason.contains("not supported") == true)
            let badPort = await Self.configurationError(fiber, fiber.request(.get, "/hello").proxy(.http(host: "proxy", port: 0)))
            #expect(badPort?.reason.contains("port out of range") == true)
            let badVariable = await Self.configurationError(
                fiber, fiber.request(.get, "/hello").proxy(.environment(variables: ["HTTPS_PROXY": "gopher://proxy"])))
            #expect(badVariable?.setting == "FiberRequest.proxy (HTTPS_PROXY)")
            #expect(seen.count == 0 && server.requestCount == 0)
        }
    }

    @Test func theLastProxyWinsAndOtherOverridesStay() async throws {
        try await withLiveServer { server, transport in
            server.route("/hello", respond: .ok("hello"))
            let fiber = Fiber(server.baseURL) { $0.transport = transport }
            let request = fiber.request(.get, "/hello").retry(.none).proxy(.url("ftp://proxy")).proxy(.none)
            #expect(request.proxy == ProxyConfiguration.none && request.retryStrategy != nil)
            let response = try await fiber.send(request)
            #expect(response.statusCode == 200 && response.text == "hello")
            // A valid proxy after it leaves another build failure (a bad URL) alone.
            let stillBad = FiberRequest(url: "not a url").proxy(.none)
            await #expect(throws: FiberError.self) { try await fiber.send(stillBad) }
        }
    }

    @Test func theTransportReceivesTheRequestsChoice() async throws {
        let mock = MockTransport()
        mock.stubAll(.ok(body: "fine"))
        let fiber = Fiber("http://127.0.0.1:9") { $0.transport = mock }
        _ = try await fiber.get("/plain")
        #expect(mock.lastRequest?.proxy == nil)
        let chosen = ProxyConfiguration.socks5(host: "127.0.0.1", port: 1080)
        _ = try await fiber.send(fiber.request(.get, "/chosen").proxy(chosen))
        #expect(mock.lastRequest?.proxy == chosen)
    }
}
