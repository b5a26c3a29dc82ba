import FiberRuntime
import FiberTesting
import Testing

/// Every fault of the test server gives its own typed error, within the
/// timeout, and leaves no connection behind (`withClient` checks the pool).
@Suite("HTTP client against faulty servers", .timeLimit(.minutes(1)))
struct ClientFaultTests {
    @Test func closeBeforeTheHead() async throws {
        try await withClient { client, server in
            server.route("/", respond: .fault(.closeBeforeHead))
            await expectHTTPError(.connectionClosed) { _ = try await client.get(server.url("/")) }
        }
    }

    @Test func closeAndResetMidBody() async throws {
        try await withClient { client, server in
            server.route("/close", respond: .fault(.closeMidBody(after: 100)))
            server.route("/reset", respond: .fault(.resetMidBody(after: 100)))
            server.route("/chunked-cut", respond: TestResponse.chunked(["abc".bytes, "def".bytes]).closingMidBody(after: 20))
            await expectHTTPError(.connectionClosed) { _ = try await client.get(server.url("/close")) }
            await expectHTTPError(.connectionClosed) { _ = try await client.get(server.url("/chunked-cut")) }
            do {
                _ = try await client.get(server.url("/reset"))
                Issue.record("a reset must fail the request")
            } catch let error as HTTPClientError {
                #expect(error.kind == .transport || error.kind == .connectionClosed, "\(error)")
            }
        }
    }

    @Test func resetBeforeAnswering() async throws {
        try await withClient { client, server in
            server.route("/", respond: .fault(.reset))
            do {
                _ = try await client.get(server.url("/"))
                Issue.record("a reset must fail the request")
            } catch let error as HTTPClientError {
                #expect(error.transport?.kind == .connectionReset || error.kind == .connectionClosed, "\(error)")
            }
        }
    }

    @Test func malformedFramingAndStatusAreErrorsAndCloseTheConnection() async throws {
        try await withClient { client, server in
            server.route("/status", respond: .fault(.malformedStatusLine))
            server.route("/cl-te", respond: .fault(.conflictingFraming))
            server.route("/cl-cl", respond: .fault(.conflictingContentLengths))
            server.route("/chunk", respond: .fault(.invalidChunkSize))
            for path in ["/status", "/cl-te", "/cl-cl", "/chunk"] {
                await expectHTTPError(.malformedResponse) { _ = try await client.get(server.url(path)) }
            }
            #expect(server.connectionCount == 4)
        }
    }

    @Test func oversizedHeadersAreRefused() async throws {
        try await withClient { client, server in
            server.route("/", respond: .fault(.oversizedHeaders(bytes: 70 * 1024)))
            await expectHTTPError(.headersTooLarge) { _ = try await client.get(server.url("/")) }
        }
    }

    @Test func readIdleTimeoutAgainstASilentServer() async throws {
        try await withClient(configure: { $0.readIdleTimeout = .milliseconds(200) }) { client, server in
            server.route("/", respond: .fault(.silent))
            let clock = ContinuousClock()
            let start = clock.now
            await expectHTTPError(.readTimeout) { _ = try await client.get(server.url("/")) }
            #expect(clock.now - start < .seconds(30), "the read timeout fires (wide for sanitizer runs)")
        }
    }

    @Test func slowDripWithinTheReadTimeoutSucceeds() async throws {
        // The whole response drips over about 2 s: longer than the idle timeout, so only a timer that restarts on each read lets it through.
        try await withClient(configure: { $0.readIdleTimeout = .milliseconds(1500) }) { client, server in
            server.route("/", respond: TestResponse.ok("drip, drip, drip").dripping(bytes: 8, every: .milliseconds(200)))
            let start = ContinuousClock.now
            let value16 = try await client.get(server.url("/")).body
            #expect(value16 == "drip, drip, drip".bytes)
            #expect(ContinuousClock.now - start > .milliseconds(1500), "the premise: the response outlasts the idle timeout")
        }
    }

    @Test func wholeRequestDeadline() async throws {
        try await withClient(configure: { $0.requestTimeout = .milliseconds(200) }) { client, server in
            server.route("/slow", respond: .delay(.seconds(5), then: .ok()))
            server.route("/drip", respond: TestResponse.ok(String(repeating: "x", count: 100)).dripping(bytes: 1, every: .milliseconds(20)))
            await expectHTTPError(.deadlineExceeded) { _ = try await client.get(server.url("/slow")) }
            await expectHTTPError(.deadlineExceeded) { _ = try await client.get(server.url("/drip")) }
        }
    }

    @Test func connectRefusedAndTimeoutAreTransportErrors() async throws {
        let silent = SilentListener()
        try await withClient(configure: { $0.socket.connectTimeout = .milliseconds(200) }) { client, _ in
            do {
                _ = try await client.get("http://127.0.0.1:\(silent.port)/")
                Issue.record("connect must time out")
            } catch let error as HTTPClientError {
                #expect(error.kind == .transport && error.transport?.kind == .timeout, "\(error)")
            }
            do {
                _ = try await client.get("http://no-such-host.invalid/")
                Issue.record("the name must not resolve")
            } catch let error as HTTPClientError {
                #expect(error.transport?.kind == .dnsFailure && error.description.contains("no-such-host.invalid"))
            }
        }
    }

    @Test func cancellingTheCallerCancelsTheRequestAndClosesItsConnection() async throws {
        try await withClient { client, server in
            server.route("/slow", respond: .delay(.seconds(30), then: .ok()))
            let url = server.url("/slow")
            let task = Task { try await client.get(url) }
            try await server.waitForRequests(1)
            task.cancel()
            do {
                _ = try await task.value
                Issue.record("a cancelled request must not succeed")
            } catch let error as HTTPClientError {
                #expect(error.kind == .cancelled)
            }
            // The server sleeps in its delay and cannot see the FIN; the client's pool shows the close.
            #expect(try await statistics(of: client) { $0.open == 0 }.open == 0)
        }
    }
}
