@testable import FiberRuntime
import FiberTesting
import Testing

/// Servers that hold a request by sending just enough: a head dripped a byte
/// at a time, or interim responses without end. Each byte resets the read-idle
/// timer, so only the response-head timeout and the interim bound stop them.
@Suite("Slow and stalling peers", .timeLimit(.minutes(1)))
struct SlowPeerTests {
    @Test func defaultsBoundTheHeadAndTheInterimResponses() {
        let configuration = HTTPClient.Configuration()
        #expect(configuration.maxInterimResponses == 10)
        #expect(configuration.readIdleTimeout == .seconds(30))
        #expect(HTTPClient.Configuration.responseHeadBound(given: configuration.responseHeadTimeout,
                                                           readIdle: configuration.readIdleTimeout) == .seconds(30))
    }

    /// A client that raised or turned off its read-idle timeout to wait for slow heads is not cut at 30 s.
    @Test func theDefaultHeadBoundFollowsTheReadIdleTimeout() {
        let bound = HTTPClient.Configuration.responseHeadBound
        #expect(bound(nil, .seconds(120)) == .seconds(120))
        #expect(bound(nil, .seconds(5)) == .seconds(30))
        #expect(bound(nil, nil) == nil)
        #expect(bound(.milliseconds(300), .seconds(30)) == .milliseconds(300))
        #expect(bound(.seconds(10), nil) == .seconds(10))
    }

    @Test func aDrippedHeadFailsAtTheResponseHeadTimeout() async throws {
        try await withClient(configure: { $0.responseHeadTimeout = .milliseconds(300); $0.readIdleTimeout = .seconds(120) }) { client, server in
            // About 40 bytes of head, one every 50 ms: the read-idle timeout (120 s) never fires.
            server.route("/", respond: TestResponse.ok("x").dripping(bytes: 1, every: .milliseconds(50)))
            let start = ContinuousClock.now
            await expectHTTPError(.responseHeadTimeout) { _ = try await client.get(server.url("/")) }
            // Far under the read-idle timeout, and wide: a loaded machine under a sanitizer lags by seconds.
            #expect(ContinuousClock.now - start < .seconds(30), "the head deadline fires, not the read-idle timeout")
        }
    }

    @Test func aRequestsOwnResponseHeadTimeoutOverridesTheClients() async throws {
        try await withClient(configure: { $0.responseHeadTimeout = nil }) { client, server in
            server.route("/", respond: .fault(.silent))
            var options = HTTPClient.RequestOptions()
            options.responseHeadTimeout = .milliseconds(200)
            await expectHTTPError(.responseHeadTimeout) { _ = try await client.get(server.url("/"), options: options) }
        }
    }

    /// A body slower than the head timeout is fine: the bound is on the head alone.
    @Test func aSlowBodyAfterAPromptHeadSucceeds() async throws {
        try await withClient(configure: { $0.responseHeadTimeout = .milliseconds(300) }) { client, server in
            let body = String(repeating: "b", count: 640)
            server.route("/", respond: TestResponse.ok(body).dripping(bytes: 100, every: .milliseconds(150)))
            let start = ContinuousClock.now
            let response = try await client.get(server.url("/"))
            #expect(response.body == body.bytes)
            #expect(ContinuousClock.now - start > .milliseconds(300), "the premise: the body outlasts the head timeout")
        }
    }

    @Test func endlessInterimResponsesFailAtTheBound() async throws {
        try await withClient { client, server in
            let flood = String(repeating: "HTTP/1.1 100 Continue\r\n\r\n", count: 1000)
            server.route("/", respond: .raw(flood, thenClose: false))
            do {
                _ = try await client.get(server.url("/"))
                Issue.record("a flood of 1xx must fail")
            } catch let error as HTTPClientError {
                #expect(error.kind == .malformedResponse && error.description.contains("interim"), "\(error)")
            }
            #expect(try await statistics(of: client) { $0.open == 0 }.open == 0)
        }
    }

    @Test func slowInterimResponsesFailAtTheResponseHeadTimeout() async throws {
        try await withClient(configure: { $0.responseHeadTimeout = .milliseconds(300); $0.maxInterimResponses = 1000 }) { client, server in
            let flood = String(repeating: "HTTP/1.1 102 Processing\r\n\r\n", count: 200)
            server.route("/", respond: TestResponse.raw(flood, thenClose: false).dripping(bytes: 28, every: .milliseconds(20)))
            await expectHTTPError(.responseHeadTimeout) { _ = try await client.get(server.url("/")) }
        }
    }

    @Test func interimResponsesWithinTheBoundPass() async throws {
        try await withClient(configure: { $0.maxInterimResponses = 3 }) { client, server in
            let head = String(repeating: "HTTP/1.1 100 Continue\r\n\r\n", count: 3) + "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"
            server.route("/", respond: .raw(head, thenClose: false))
            let response = try await client.get(server.url("/"))
            #expect(response.status == 200 && response.body == "ok".bytes)
        }
    }
}
