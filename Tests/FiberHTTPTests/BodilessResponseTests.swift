import FiberRuntime
import FiberTesting
import Testing

/// Responses that end with their head (RFC 9112 §6.3 rule 1), whatever their
/// fields say, and responses that switch protocols unasked.
@Suite("Bodiless and unsolicited responses", .timeLimit(.minutes(1)))
struct BodilessResponseTests {
    /// A 304 declaring the length of the representation: the old reading waited for those bytes until the read timeout.
    @Test func notModifiedWithContentLengthEndsAtItsHead() async throws {
        try await withClient(configure: { $0.readIdleTimeout = .seconds(20) }) { client, server in
            server.route("/", respond: .raw("HTTP/1.1 304 Not Modified\r\nETag: \"v1\"\r\nContent-Length: 1234\r\n\r\n", thenClose: false))
            let start = ContinuousClock.now
            for _ in 0..<2 {
                let response = try await client.get(server.url("/"))
                #expect(response.status == 304 && response.body.isEmpty && response.headers["ETag"] == "\"v1\"")
            }
            #expect(ContinuousClock.now - start < .seconds(10), "answered at the head, not at the read timeout")
            #expect(server.connectionCount == 1, "nothing followed the head: the connection is reused")
        }
    }

    /// A 204 followed by the bytes its length announced: they are no body, and no next response either.
    @Test func noContentWithStrayBytesIsEmptyAndItsConnectionCloses() async throws {
        try await withClient { client, server in
            server.route("/204", respond: .raw("HTTP/1.1 204 No Content\r\nContent-Length: 5\r\n\r\nhello", thenClose: false))
            server.route("/ok", respond: .ok("fine"))
            let response = try await client.get(server.url("/204"))
            #expect(response.status == 204 && response.body.isEmpty)
            let next = try await client.get(server.url("/ok"))
            #expect(next.body == "fine".bytes)
            #expect(server.connectionCount == 2, "the connection with stray bytes was not pooled")
        }
    }

    /// A 204 with a chunked framing is still bodiless: what follows is not read as its body.
    @Test func noContentWithChunkedFramingEndsAtItsHead() async throws {
        try await withClient { client, server in
            server.route("/", respond: .raw("HTTP/1.1 204 No Content\r\nTransfer-Encoding: chunked\r\n\r\n", thenClose: false))
            for _ in 0..<2 {
                let response = try await client.get(server.url("/"))
                #expect(response.status == 204 && response.body.isEmpty)
            }
            #expect(server.connectionCount == 1)
        }
    }

    /// A response to HEAD may announce a body larger than the collection limit: nothing of it comes.
    @Test func headResponseOverTheBodyLimitIsNotTooLarge() async throws {
        try await withClient(configure: { $0.maxResponseBodySize = 100 }) { client, server in
            server.route("/", respond: .raw("HTTP/1.1 200 OK\r\nContent-Length: 1000000\r\n\r\n", thenClose: false))
            let response = try await client.execute(HTTPClientRequest(url: server.url("/"), method: "HEAD"))
            #expect(response.status == 200 && response.body.isEmpty && response.headers["Content-Length"] == "1000000")
        }
    }

    /// An interim response that declares a length has no body: the bytes after it are the final head.
    @Test func interimResponseWithContentLengthHasNoBody() async throws {
        try await withClient { client, server in
            server.route("/", respond: .raw(
                "HTTP/1.1 103 Early Hints\r\nLink: </a.css>\r\nContent-Length: 4\r\n\r\n"
                    + "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", thenClose: false))
            let response = try await client.get(server.url("/"))
            #expect(response.status == 200 && response.body == "ok".bytes)
        }
    }

    /// A 101 the request did not ask for: a typed error, and the switched connection never goes back to the pool.
    @Test(arguments: [
        "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n",
        "HTTP/1.1 101 Switching Protocols\r\n\r\n",
        "HTTP/1.1 101 Switching Protocols\r\nContent-Length: 3\r\n\r\nabc",
    ])
    func unsolicitedSwitchingProtocolsIsAnErrorAndClosesTheConnection(head: String) async throws {
        try await withClient { client, server in
            server.route("/switch", respond: .raw(head, thenClose: false))
            server.route("/ok", respond: .ok("plain"))
            do {
                _ = try await client.get(server.url("/switch"))
                Issue.record("an unsolicited 101 must fail the request")
            } catch let error as HTTPClientError {
                #expect(error.kind == .malformedResponse && error.description.contains("101"), "\(error)")
            }
            let next = try await client.get(server.url("/ok"))
            #expect(next.body == "plain".bytes)
            #expect(server.connectionCount == 2, "the next request was not written into the switched connection")
            #expect(try await statistics(of: client) { $0.open == 1 }.open == 1)
        }
    }
}
