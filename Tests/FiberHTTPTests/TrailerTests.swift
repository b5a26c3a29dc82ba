import FiberRuntime
import FiberTesting
import Testing

/// The trailer fields after a chunked HTTP/1.1 body, through `execute` and
/// `stream`: kept apart from the head, forbidden ones dropped, held to the
/// header-size limit.
@Suite("HTTP/1.1 trailers", .timeLimit(.minutes(1)))
struct TrailerTests {
    func text(_ response: HTTPClientResponse) -> String { String(decoding: response.body, as: UTF8.self) }

    static let trailed: HTTPHeaders = [("X-Checksum", "abc123"), ("X-Count", "2")].reduce(into: HTTPHeaders()) {
        $0.append(name: $1.0, value: $1.1)
    }

    @Test func aCollectedChunkedResponseCarriesItsTrailers() async throws {
        try await withClient { client, server in
            server.route("/trailed") { _ in .chunked(["Hello, ", "world"], trailers: Self.trailed) }
            server.route("/plain") { _ in .chunked(["no trailers"]) }
            server.route("/sized") { _ in .ok("sized") }
            let response = try await client.get(server.url("/trailed"))
            #expect(text(response) == "Hello, world")
            #expect(response.trailers == Self.trailed)
            #expect(response.headers.first(name: "X-Checksum") == nil, "trailers stay apart from the head's fields")
            let plain = try await client.get(server.url("/plain"))
            #expect(text(plain) == "no trailers" && plain.trailers == nil)
            #expect(plain.timing.reusedConnection, "the connection is reused after a trailer section")
            let sized = try await client.get(server.url("/sized"))
            #expect(sized.trailers == nil)
        }
    }

    @Test func aStreamedBodyHasItsTrailersOnceReadToTheEnd() async throws {
        try await withClient { client, server in
            server.route("/trailed") { _ in .chunked(["Hello, ", "world"], trailers: Self.trailed) }
            let response = try await client.stream(HTTPClientRequest(url: server.url("/trailed")))
            // Before the end is read, the answer is not known: a typed error at once, no wait.
            await expectHTTPError(.trailersNotReady) { _ = try await response.trailers() }
            let body = try await response.body.collect()
            #expect(String(decoding: body, as: UTF8.self) == "Hello, world")
            let trailers = try await response.trailers()
            #expect(trailers == Self.trailed)
            let fromBody = try await response.body.trailers()
            #expect(fromBody == Self.trailed, "the body and the response answer alike, again and again")
        }
    }

    @Test func aStreamedBodyWithoutTrailersAnswersNil() async throws {
        try await withClient { client, server in
            server.route("/plain") { _ in .chunked(["a", "b"]) }
            server.route("/sized") { _ in .ok("sized") }
            for path in ["/plain", "/sized"] {
                let response = try await client.stream(HTTPClientRequest(url: server.url(path)))
                _ = try await response.body.collect()
                let trailers = try await response.trailers()
                #expect(trailers == nil, "\(path)")
            }
        }
    }

    @Test func forbiddenTrailerFieldsAreDropped() async throws {
        let sent = [("Content-Length", "5"), ("X-Keep", "1"), ("Host", "elsewhere.example"), ("Transfer-Encoding", "chunked"),
                    ("content-type", "text/html"), ("Set-Cookie", "a=b"), ("X-Also", "2")]
            .reduce(into: HTTPHeaders()) { $0.append(name: $1.0, value: $1.1) }
        let kept: HTTPHeaders = [("X-Keep", "1"), ("X-Also", "2")].reduce(into: HTTPHeaders()) { $0.append(name: $1.0, value: $1.1) }
        try await withClient { client, server in
            server.route("/mixed") { _ in .chunked(["body"], trailers: sent) }
            server.route("/forbidden") { _ in .chunked(["body"], trailers: ["Content-Length": "999", "Connection": "close"]) }
            let mixed = try await client.get(server.url("/mixed"))
            #expect(text(mixed) == "body" && mixed.trailers == kept)
            #expect(mixed.headers.first(name: "Host") == nil && mixed.headers.first(name: "Content-Length") == nil,
                    "nothing of the trailers reaches the head")
            let forbidden = try await client.get(server.url("/forbidden"))
            #expect(text(forbidden) == "body" && forbidden.trailers == nil, "only forbidden fields: none")
            // Its `Connection: close` came too late to be a field, but the connection is not reused after it.
            let next = try await client.get(server.url("/mixed"))
            #expect(!next.timing.reusedConnection && next.trailers == kept)
            let streamed = try await client.stream(HTTPClientRequest(url: server.url("/mixed")))
            _ = try await streamed.body.collect()
            let streamedTrailers = try await streamed.trailers()
            #expect(streamedTrailers == kept)
        }
    }

    @Test func anOversizedTrailerSectionFailsWithHeadersTooLarge() async throws {
        try await withClient(configure: { $0.maxHeaderBytes = 1024 }) { client, server in
            let big: HTTPHeaders = ["X-Big": String(repeating: "t", count: 2000)]
            let many = (0..<600).reduce(into: HTTPHeaders()) { $0.append(name: "x\($1)", value: "") }
            server.route("/big") { _ in .chunked(["body"], trailers: big) }
            server.route("/many") { _ in .chunked(["body"], trailers: many) }
            // Head and trailers each under the limit pass: each section is held to it on its own.
            let near: HTTPHeaders = ["X-Near": String(repeating: "n", count: 700)]
            server.route("/near") { _ in .chunked(["body"], trailers: near, headers: near) }
            await expectHTTPError(.headersTooLarge) { _ = try await client.get(server.url("/big")) }
            await expectHTTPError(.headersTooLarge) { _ = try await client.get(server.url("/many")) }
            // The head comes well before the trailers here, so the body's reader is the one told
            // (read together, as on a starved loop, `stream` itself throws it).
            server.route("/late") { _ in .chunked(["a", "b"], every: .milliseconds(50), trailers: big) }
            do {
                let streamed = try await client.stream(HTTPClientRequest(url: server.url("/late")))
                await expectHTTPError(.headersTooLarge) { _ = try await streamed.body.collect() }
                await expectHTTPError(.headersTooLarge) { _ = try await streamed.trailers() }
            } catch let error as HTTPClientError {
                #expect(error.kind == .headersTooLarge, "\(error)")
            }
            let passing = try await client.get(server.url("/near"))
            #expect(passing.trailers == near && passing.headers.first(name: "X-Near") != nil)
        }
    }

    /// A trailer line that is not a field, or a trailer section the peer cuts short:
    /// a typed error for the collected and the streamed response, and for the
    /// streamed one's `trailers()` the body's own failure, never trailers made up.
    @Test func aMalformedOrTruncatedTrailerSectionFails() async throws {
        try await withClient { client, server in
            let head = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nbody\r\n0\r\n"
            server.route("/malformed") { _ in .raw(head + "X-Ok: 1\r\nnot a field\r\n\r\n", thenClose: true) }
            server.route("/cut") { _ in .raw(head + "X-Checksum: abc", thenClose: true) }
            for (path, kind) in [("/malformed", HTTPClientError.Kind.malformedResponse), ("/cut", .connectionClosed)] {
                await expectHTTPError(kind) { _ = try await client.get(server.url(path)) }
                // All of it comes in one read, so `stream` may hear the failure itself, before it returns.
                do {
                    let streamed = try await client.stream(HTTPClientRequest(url: server.url(path)))
                    await expectHTTPError(kind) { _ = try await streamed.body.collect() }
                    await expectHTTPError(kind) { _ = try await streamed.trailers() }
                } catch let error as HTTPClientError {
                    #expect(error.kind == kind, "\(path): \(error)")
                }
            }
            let statistics = await client.statistics()
            #expect(statistics.leased == 0 && statistics.idle == 0, "no failed connection is pooled: \(statistics)")
        }
    }

    @Test func aCompressedStreamedBodyHasItsTrailersAfterInflating() async throws {
        let text = String(repeating: "trailers after a gzip body. ", count: 200)
        let compressed = compress(Array(text.utf8), windowBits: 31)
        try await withClient { client, server in
            server.route("/gz") { _ in
                .chunked([Array(compressed.prefix(100)), Array(compressed.dropFirst(100))], trailers: Self.trailed,
                         headers: ["Content-Encoding": "gzip"])
            }
            let response = try await client.stream(HTTPClientRequest(url: server.url("/gz")))
            let body = try await response.body.collect()
            #expect(String(decoding: body, as: UTF8.self) == text)
            let trailers = try await response.trailers()
            #expect(trailers == Self.trailed)
        }
    }
}
