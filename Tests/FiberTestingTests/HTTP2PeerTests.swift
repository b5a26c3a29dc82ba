import FiberTesting
import Foundation
import Testing

/// `Scripts/h2_peer.py` checked with `nghttp -v`: each misbehaviour puts on the wire the
/// frames the HTTP/2 client tests rely on.
@Suite(.serialized, .timeLimit(.minutes(2)),
       .enabled(if: Nghttp.isInstalled, "nghttp is not installed (Scripts/setup installs nghttp2-client)"),
       .enabled(if: HTTP2Peer.isAvailable, "python3 has no h2 module (Scripts/setup installs it)"))
struct HTTP2PeerTests {
    static func withPeer(
        tls: Bool = false, settings: HTTP2Peer.Settings = HTTP2Peer.Settings(), _ body: (HTTP2Peer) async throws -> Void
    ) async throws {
        let certificates: TestCertificates? = tls ? try await TestCertificates.shared() : nil
        let peer = try HTTP2Peer(certificates: certificates, settings: settings)
        defer { peer.stop() }
        try await body(peer)
    }

    @Test(arguments: [true, false])
    func plainResponse(tls: Bool) async throws {
        try await Self.withPeer(tls: tls) { peer in
            let run = try await Nghttp.run(["-v", peer.url("/")])
            #expect(run.processedAll, "\(run.output)")
            #expect(run.output.contains("recv DATA frame <length=13, flags=0x01"))
            if tls { #expect(run.output.contains("The negotiated protocol: h2")) }
        }
    }

    @Test func goawayWithALowerLastStreamID() async throws {
        try await Self.withPeer { peer in
            let run = try await Nghttp.run(["-nv", peer.url("/goaway?last=1")])
            #expect(!run.processedAll, "the stream above last_stream_id is not processed")
            #expect(run.output.contains("recv GOAWAY frame"))
            #expect(run.output.contains("last_stream_id=1, error_code=NO_ERROR(0x00)"), "\(run.output)")
        }
    }

    @Test(arguments: [("refused", "REFUSED_STREAM(0x07)"), ("internal", "INTERNAL_ERROR(0x02)")])
    func resetStream(name: String, code: String) async throws {
        try await Self.withPeer { peer in
            let run = try await Nghttp.run(["-nv", peer.url("/rst/\(name)")])
            #expect(run.output.contains("recv RST_STREAM frame"))
            #expect(run.output.contains("(error_code=\(code))"), "\(run.output)")
            // `once`: the retry of the same key gets the plain answer.
            _ = try await Nghttp.run(["-nv", peer.url("/rst/\(name)?once=k")])
            let retry = try await Nghttp.run(["-nv", peer.url("/rst/\(name)?once=k")])
            #expect(retry.processedAll && retry.output.contains("recv DATA frame <length=13"))
        }
    }

    @Test func tinyInitialWindowMakesTheUploadWait() async throws {
        try await Self.withPeer(settings: HTTP2Peer.Settings(initialWindowSize: 16)) { peer in
            let directory = try TemporaryDirectory.make(prefix: "fiber-h2-upload")
            defer { try? FileManager.default.removeItem(atPath: directory) }
            // Sent before nghttp has seen the peer's SETTINGS, the first 64 KiB go with the default
            // window; the rest, or all if the SETTINGS came first, in DATA frames of at most 16 bytes.
            try Data(patternedBytes(66_000)).write(to: URL(fileURLWithPath: directory + "/body"))
            let run = try await Nghttp.run(["-v", "-d", directory + "/body", peer.url("/upload")], timeout: .seconds(60))
            #expect(run.output.contains("SETTINGS_INITIAL_WINDOW_SIZE(0x04):16"))
            #expect(run.output.contains("{\"bytes\": 66000"), "\(run.output.suffix(3000))")
            let sent = run.output.matches(of: /send DATA frame <length=(\d+)/).compactMap { Int($0.1) }
            #expect(sent.reduce(0, +) == 66_000)
            #expect(sent.filter { $0 <= 16 }.count >= 20, "\(sent.suffix(40))")
            // A slow reader: each frame's window comes back 1 ms late.
            try Data(patternedBytes(800)).write(to: URL(fileURLWithPath: directory + "/small"))
            let slow = try await Nghttp.run(["-v", "-d", directory + "/small", peer.url("/upload?read_delay_ms=1")])
            #expect(slow.output.contains("{\"bytes\": 800"), "\(slow.output.suffix(3000))")
        }
    }

    @Test func headerListsOverTheLimits() async throws {
        try await Self.withPeer { peer in
            // One header far over 64 KiB: nghttp refuses the header block.
            let big = try await Nghttp.run(["-nv", peer.url("/header-list?size=70000")])
            #expect(!big.processedAll && big.output.contains("send RST_STREAM frame"), "\(big.output.suffix(2000))")
            // The HPACK bomb: 10 × 4000 bytes decoded from a header block a tenth of that.
            let bomb = try await Nghttp.run(["-v", peer.url("/hpack-bomb?count=10")])
            #expect(bomb.count("x-bomb: bbbb") == 10)
            let block = bomb.output.firstMatch(of: /recv HEADERS frame <length=(\d+)/).flatMap { Int($0.1) }
            #expect((block ?? .max) < 4000)
        }
    }

    @Test func continuationFlood() async throws {
        try await Self.withPeer { peer in
            let ended = try await Nghttp.run(["-v", peer.url("/continuation-flood?count=5&end=1")])
            #expect(ended.count("x-f: y") == 5, "\(ended.output.suffix(2000))")
            #expect(ended.output.contains("recv DATA frame <length=13, flags=0x01"))
            // nghttp2 stops a header block after 8 CONTINUATION frames (its fix for CVE-2024-28182).
            let flood = try await Nghttp.run(["-nv", peer.url("/continuation-flood?count=2000")])
            #expect(!flood.processedAll)
            #expect(flood.output.contains("Too many CONTINUATION frames"), "\(flood.output.suffix(2000))")
        }
    }

    @Test(arguments: [("ping-flood", "recv PING frame <length=8, flags=0x00"), ("settings-flood", "recv SETTINGS frame <length=0, flags=0x00")])
    func floods(path: String, frame: String) async throws {
        try await Self.withPeer { peer in
            let run = try await Nghttp.run(["-nv", peer.url("/\(path)?count=100")])
            #expect(run.count(frame) == 100, "\(run.output.suffix(2000))")
            #expect(run.processedAll)
        }
    }

    @Test func rstFlood() async throws {
        try await Self.withPeer { peer in
            let run = try await Nghttp.run(["-nv", peer.url("/rst-flood?count=50")])
            #expect(run.count("recv RST_STREAM frame") >= 1)
            #expect(!run.processedAll)
        }
    }

    @Test func trailersAndHTTP1OnlyHeaders() async throws {
        try await Self.withPeer { peer in
            let trailers = try await Nghttp.run(["-v", peer.url("/trailers")])
            #expect(trailers.output.contains("x-trailer: done") && trailers.output.contains("x-checksum: 13"))
            for header in ["connection", "transfer-encoding", "keep-alive", "upgrade"] {
                let run = try await Nghttp.run(["-nv", peer.url("/http1-headers?header=\(header)")])
                #expect(!run.processedAll)
                #expect(run.output.contains("Invalid HTTP header field was received") && run.output.contains("name: [\(header)]"),
                        "\(header): \(run.output)")
            }
        }
    }

    @Test func echoesHeadersAndBody() async throws {
        try await Self.withPeer { peer in
            let headers = try await Nghttp.run(["-H", "x-probe: 1", peer.url("/headers")])
            #expect(headers.output.contains("[\":authority\", \"127.0.0.1:\(peer.port)\"]"), "\(headers.output)")
            #expect(headers.output.contains("[\"x-probe\", \"1\"]"))
            let directory = try TemporaryDirectory.make(prefix: "fiber-h2-echo")
            defer { try? FileManager.default.removeItem(atPath: directory) }
            try "echo me".write(toFile: directory + "/body", atomically: true, encoding: .utf8)
            let echo = try await Nghttp.run(["-v", "-d", directory + "/body", peer.url("/echo")])
            #expect(echo.output.contains("echo me"))
        }
    }

    @Test func heldStreamsUnderMaxConcurrentStreams() async throws {
        try await Self.withPeer(settings: HTTP2Peer.Settings(maxConcurrentStreams: 2)) { peer in
            let directory = try TemporaryDirectory.make(prefix: "fiber-h2-hold")
            defer { try? FileManager.default.removeItem(atPath: directory) }
            // Three streams on one connection. Sent before nghttp saw the limit, two are held and
            // the third is refused (REFUSED_STREAM, which a client may retry); sent after, the
            // third waits for a free slot and is held in turn.
            let holder = try ChildProcess.spawn(
                Nghttp.binary, arguments: ["-nv", peer.url("/hold?1"), peer.url("/hold?2"), peer.url("/hold?3")],
                output: directory + "/hold")
            var held = ""
            for _ in 0..<200 where !held.contains("\"held\": 2") {
                try await Task.sleep(for: .milliseconds(50))
                held = try await Nghttp.run([peer.url("/stats")]).output
            }
            #expect(held.contains("\"held\": 2"), "\(held)")
            var released = 0
            for _ in 0..<100 where holder.isRunning {
                let answer = try await Nghttp.run([peer.url("/release")]).output
                released += Int(answer.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
                try await Task.sleep(for: .milliseconds(100))
            }
            let exited = await holder.waitForSuccess(timeout: .seconds(10))
            #expect(exited)
            let output = (try? String(contentsOfFile: directory + "/hold", encoding: .utf8)) ?? ""
            #expect(output.contains("SETTINGS_MAX_CONCURRENT_STREAMS(0x03):2"))
            let refused = output.contains("error_code=REFUSED_STREAM(0x07)")
            #expect(released + (refused ? 1 : 0) == 3, "\(output.suffix(2000))")
        }
    }
}
