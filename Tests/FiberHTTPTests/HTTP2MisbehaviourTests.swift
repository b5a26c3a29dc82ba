import FiberRuntime
import FiberTesting
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// HTTP/2 against a server that misbehaves on purpose (`Scripts/h2_peer.py`):
/// GOAWAY mid-stream, resets, floods, bombs, malformed heads, tiny windows,
/// stream limits and a server that stops answering PINGs. Each case ends in a
/// typed error (or a retry the rules allow) within bounded time, and the
/// client's pool is at rest afterwards.
@Suite(.serialized, .timeLimit(.minutes(2)),
       .enabled(if: HTTP2Peer.isAvailable, "python3 has no h2 module (Scripts/setup installs it)"))
struct HTTP2MisbehaviourTests {
    static let group = EventLoopGroup(loopCount: 1, name: "h2-misbehaviour")

    /// An h2c client (prior knowledge) against a fresh peer.
    func withPeer(settings: HTTP2Peer.Settings = .init(), _ configure: (inout HTTPClient.Configuration) -> Void = { _ in },
                  _ body: (HTTP2Peer, HTTPClient) async throws -> Void) async throws {
        let peer = try HTTP2Peer(settings: settings)
        defer { peer.stop() }
        var configuration = HTTPClient.Configuration()
        configuration.httpVersion = .http2PriorKnowledge
        configuration.readIdleTimeout = .seconds(10)
        configure(&configuration)
        let client = HTTPClient(eventLoopGroup: Self.group, configuration: configuration)
        try await body(peer, client)
        let statistics = await client.statistics()
        #expect(statistics.leased == 0 && statistics.waiting == 0, "the pool at rest: \(statistics)")
        await client.shutdown()
    }

    func failure(_ client: HTTPClient, _ url: String, options: HTTPClient.RequestOptions = .init()) async -> HTTPClientError? {
        do {
            _ = try await client.execute(HTTPClientRequest(url: url), options: options)
            return nil
        } catch {
            return error as? HTTPClientError
        }
    }

    /// What may be sent is checked once, when the request is prepared, whichever
    /// version carries it: a bad request fails before any connection is asked for.
    @Test func fieldsThatMayNotBeSentAreRefusedBeforeAConnectionOpens() async throws {
        try await withPeer { peer, client in
            let bad: [(String, String, HTTPHeaders, HTTPClientError.Kind)] = [
                ("GE T", "/", [:], .invalidHeader), ("GET", "/", ["X-Bad": "a\r\nb"], .invalidHeader),
                ("GET", "/", ["Bad Name": "x"], .invalidHeader), ("GET", "/", ["Host": "a\u{0}b"], .invalidHeader),
            ]
            for (method, path, headers, kind) in bad {
                do {
                    _ = try await client.execute(HTTPClientRequest(url: peer.url(path), method: method, headers: headers))
                    Issue.record("\(method) \(headers) was sent")
                } catch let error as HTTPClientError {
                    #expect(error.kind == kind, "\(error)")
                }
            }
            let statistics = await client.statistics()
            #expect(statistics.open == 0 && statistics.connecting == 0, "no connection for refused requests: \(statistics)")
            let good = try await client.execute(HTTPClientRequest(url: peer.url("/")))
            #expect(good.version == .http2 && !good.timing.reusedConnection)
        }
    }

    @Test func goAwayBeforeAStreamWasProcessedSendsItAgainOnANewConnection() async throws {
        try await withPeer { peer, client in
            let response = try await client.execute(HTTPClientRequest(url: peer.url("/goaway?once=g1")))
            #expect(response.status == 200)
            #expect(response.text == "Hello, world!", "the retry, on a new connection")
            #expect(response.version == .http2)
        }
    }

    @Test func goAwayAfterAStreamBeganFailsItWithTheCode() async throws {
        try await withPeer { peer, client in
            let error = await failure(client, peer.url("/goaway?after=headers&code=2"))
            #expect(error?.kind == .http2 || error?.kind == .connectionClosed, "\(String(describing: error))")
            // The connection went away: the next request gets a new one.
            let next = try await client.execute(HTTPClientRequest(url: peer.url("/")))
            #expect(next.text == "Hello, world!")
        }
    }

    @Test func refusedStreamIsRetriedOnceAndOtherResetsAreErrors() async throws {
        try await withPeer { peer, client in
            let retried = try await client.execute(HTTPClientRequest(url: peer.url("/rst/refused?once=r1")))
            #expect(retried.text == "Hello, world!")
            let internalError = await failure(client, peer.url("/rst/internal"))
            #expect(internalError?.kind == .http2)
            #expect(internalError?.http2ErrorCode == 0x2)
            #expect(internalError?.description.contains("INTERNAL_ERROR") == true, "\(String(describing: internalError))")
            let afterHead = await failure(client, peer.url("/rst/refused?after=headers"))
            #expect(afterHead?.http2ErrorCode == 0x7, "a refused stream that already answered is not retried")
        }
    }

    @Test func headerListsOverTheLimitFailTheStream() async throws {
        try await withPeer { peer, client in
            let big = await failure(client, peer.url("/header-list?size=70000"))
            #expect(big?.kind == .headersTooLarge, "\(String(describing: big))")
            let many = await failure(client, peer.url("/header-list?count=10000"))
            #expect(many?.kind == .headersTooLarge, "\(String(describing: many))")
            let bomb = await failure(client, peer.url("/hpack-bomb"))
            #expect(bomb?.kind == .headersTooLarge, "\(String(describing: bomb))")
            let after = try await client.execute(HTTPClientRequest(url: peer.url("/")))
            #expect(after.text == "Hello, world!", "one stream failed, the connection lives on")
        }
    }

    @Test func floodsCloseTheConnectionWithEnhanceYourCalm() async throws {
        for path in ["/continuation-flood", "/ping-flood", "/settings-flood"] {
            try await withPeer { peer, client in
                let error = await failure(client, peer.url(path))
                #expect(error?.kind == .http2, "\(path): \(String(describing: error))")
                #expect(error?.http2ErrorCode == 0xb, "\(path): \(String(describing: error))")
            }
        }
        try await withPeer { peer, client in
            let error = await failure(client, peer.url("/rst-flood"))
            #expect(error?.kind == .http2, "\(String(describing: error))")
        }
    }

    @Test func connectionSpecificResponseFieldsAreMalformed() async throws {
        try await withPeer { peer, client in
            let error = await failure(client, peer.url("/http1-headers"))
            #expect(error?.kind == .http2)
            #expect(error?.http2ErrorCode == 0x1, "\(String(describing: error))")
        }
    }

    @Test func trailersAndEchoedHeaders() async throws {
        try await withPeer { peer, client in
            let trailed = try await client.execute(HTTPClientRequest(url: peer.url("/trailers")))
            #expect(trailed.trailers?.first(name: "x-checksum") != nil)
            let echoed = try await client.execute(HTTPClientRequest(
                url: peer.url("/headers"), headers: ["Connection": "keep-alive", "Keep-Alive": "5", "TE": "trailers", "X-Mine": "1"]))
            let names = echoed.text.lowercased()
            #expect(names.contains(":authority") && names.contains("x-mine") && names.contains("\"te\""))
            #expect(!names.contains("keep-alive") && !names.contains("\"connection\""))
        }
    }

    @Test func aStreamedResponseHasItsTrailersOnceReadToTheEnd() async throws {
        try await withPeer { peer, client in
            let response = try await client.stream(HTTPClientRequest(url: peer.url("/trailers")))
            #expect(response.version == .http2)
            do throws(HTTPClientError) {
                _ = try await response.trailers()
                Issue.record("trailers before the end was read")
            } catch {
                #expect(error.kind == .trailersNotReady, "\(error)")
            }
            let body = try await response.body.collect()
            #expect(String(decoding: body, as: UTF8.self) == "Hello, world!")
            let trailers = try await response.trailers()
            #expect(trailers?.first(name: "x-trailer") == "done" && trailers?.first(name: "x-checksum") == "13")
            #expect(trailers?.count == 2)
        }
    }

    @Test func forbiddenTrailerFieldsAreDropped() async throws {
        try await withPeer { peer, client in
            let collected = try await client.execute(HTTPClientRequest(url: peer.url("/trailers?forbidden=1")))
            #expect(String(decoding: collected.body, as: UTF8.self) == "Hello, world!")
            #expect(collected.trailers.map { Array($0).map(\.name) } == ["x-trailer", "x-checksum"])
            let streamed = try await client.stream(HTTPClientRequest(url: peer.url("/trailers?forbidden=1")))
            _ = try await streamed.body.collect()
            let trailers = try await streamed.trailers()
            #expect(trailers.map { Array($0).map(\.name) } == ["x-trailer", "x-checksum"])
            // A length in the trailers that is not the body's: nghttp2 refuses the stream as malformed.
            let error = await failure(client, peer.url("/trailers?forbidden=length"))
            #expect(error?.kind == .http2, "\(String(describing: error))")
        }
    }

    @Test func uploadsKeepWithinATinyWindow() async throws {
        try await withPeer(settings: .init(initialWindowSize: 16)) { peer, client in
            let payload = patternedBytes(300_000, seed: 3)
            let response = try await client.execute(HTTPClientRequest(url: peer.url("/echo"), method: "POST", body: .bytes(payload)))
            #expect(response.body == payload)
            let slow = try await client.execute(HTTPClientRequest(url: peer.url("/upload?read_delay_ms=1"), method: "POST",
                                                                  body: .bytes(patternedBytes(64_000))))
            #expect(slow.text.contains("\"bytes\": 64000") || slow.text.contains("\"bytes\":64000"), "\(slow.text)")
        }
    }

    @Test func aFullConnectionOpensAnotherWhileStreamsAreHeld() async throws {
        try await withPeer(settings: .init(maxConcurrentStreams: 2), { $0.maxConnectionsPerHost = 3 }) { peer, client in
            async let held = withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<6 { group.addTask { try await client.execute(HTTPClientRequest(url: peer.url("/hold"))).text } }
                return try await group.reduce(into: [String]()) { $0.append($1) }
            }
            try await waitUntil("six held streams at two per connection: three connections", timeout: .seconds(10)) {
                await client.statistics().open == 3
            }
            // Every connection is full and the limit reached: the release goes from a second client,
            // once the peer holds all six.
            var releaserConfiguration = HTTPClient.Configuration()
            releaserConfiguration.httpVersion = .http2PriorKnowledge
            let releaser = HTTPClient(eventLoopGroup: Self.group, configuration: releaserConfiguration)
            try await waitUntil("the peer holds six streams", timeout: .seconds(10)) {
                let stats = try? await releaser.execute(HTTPClientRequest(url: peer.url("/stats"))).text
                return stats?.replacingOccurrences(of: " ", with: "").contains("\"held\":6") == true
            }
            _ = try await releaser.execute(HTTPClientRequest(url: peer.url("/release")))
            let answers = try await held
            #expect(answers == Array(repeating: "released", count: 6))
            await releaser.shutdown()
        }
    }

    @Test func anIdleConnectionThatStopsAnsweringPingsIsClosed() async throws {
        try await withPeer({ $0.http2.pingInterval = .milliseconds(100); $0.http2.pingTimeout = .milliseconds(300) }) { peer, client in
            _ = try await client.execute(HTTPClientRequest(url: peer.url("/")))
            // Several intervals with acknowledgements: the connection stays.
            try await Task.sleep(for: .milliseconds(500))
            let open = await client.statistics().open
            #expect(open == 1)
            // The server stops answering (stopped, not closed: no FIN, no RST).
            kill(peer.processIdentifier, SIGSTOP)
            defer { kill(peer.processIdentifier, SIGCONT) }
            try await waitUntil("no PING acknowledgement: the connection closes", timeout: .seconds(5)) {
                await client.statistics().open == 0
            }
        }
    }
}

extension HTTPClientResponse {
    /// The body as UTF-8 text.
    fileprivate var text: String { String(decoding: body, as: UTF8.self) }
}
