@testable import FiberRuntime
import FiberTesting
import Testing

/// The codings beside gzip and deflate (`br`, `zstd`), each built in with its
/// package trait: made by the reference `brotli` and `zstd` commands, served
/// over a real socket, decoded collected and streamed, and failing as gzip
/// does when truncated, corrupt or a bomb.
enum ToolCoding: String, CaseIterable, Sendable {
    case brotli = "br"
    case zstd

    /// The codings of this build (each trait that is on).
    static var builtIn: [ToolCoding] {
        var codings: [ToolCoding] = []
        #if Brotli
        codings.append(.brotli)
        #endif
        #if Zstd
        codings.append(.zstd)
        #endif
        return codings
    }

    func compress(_ bytes: [UInt8]) async throws -> [UInt8] {
        switch self {
        case .brotli: try await CompressionTool.brotli(bytes)
        case .zstd: try await CompressionTool.zstd(bytes)
        }
    }

    /// `size` zeros, compressed as tightly as the tool goes fast: far beyond a thousand to one.
    func bomb(inflatedSize size: Int) async throws -> [UInt8] {
        switch self {
        case .brotli: try await CompressionTool.zeros(size, through: "brotli -c -q 5")
        case .zstd: try await CompressionTool.zeros(size, through: "zstd -q -c -3")
        }
    }
}

@Suite("Brotli and zstd bodies", .timeLimit(.minutes(2)))
struct ContentCodingTests {
    static let text = CompressedBodyTests.text

    @Test func acceptEncodingNamesEveryCodingBuiltInAndNoOther() async throws {
        var expected = "gzip, deflate"
        #if Brotli
        expected += ", br"
        #endif
        #if Zstd
        expected += ", zstd"
        #endif
        #expect(HTTPClient.contentCodings.joined(separator: ", ") == expected)
        try await withClient { client, server in
            server.route("/", respond: .ok("seen"))
            _ = try await client.get(server.url("/"))
            #expect(server.lastRequest?.header("Accept-Encoding") == expected)
        }
    }

    /// A body dripped in odd pieces arrives whole, collected and streamed, a chunk at a time.
    @Test(arguments: ToolCoding.builtIn)
    func anHonestBodyDecodesCollectedAndStreamed(_ coding: ToolCoding) async throws {
        let body = try await coding.compress(Self.text)
        try await withClient { client, server in
            server.route("/", respond: .bytes(body, headers: ["Content-Encoding": coding.rawValue])
                .dripping(bytes: 7_919, every: .milliseconds(1)))
            let collected = try await client.get(server.url("/"))
            #expect(collected.body == Self.text)
            #expect(collected.headers["Content-Encoding"] == coding.rawValue)
            let streamed = try await streamedBody(client, server.url("/"))
            #expect(streamed == Self.text)
        }
    }

    /// Cut in half, bytes flipped in the middle, plain text under the coding's name:
    /// `.decompressionFailed`, collected or streamed, and the next request still goes.
    @Test(arguments: ToolCoding.builtIn)
    func truncatedAndCorruptBodiesFailAsGzipDoes(_ coding: ToolCoding) async throws {
        let whole = try await coding.compress(Self.text)
        var flipped = whole
        for i in (whole.count / 2)..<(whole.count / 2 + 16) { flipped[i] ^= 0xFF }
        let bad: [(path: String, body: [UInt8], says: String)] = [
            ("/truncated", Array(whole[..<(whole.count / 2)]), "truncated"),
            ("/flipped", flipped, "corrupt"),
            ("/plain", Array("this is not compressed at all".utf8), "corrupt"),
        ]
        try await withClient { client, server in
            for (path, body, _) in bad {
                server.route(path, respond: .bytes(body, headers: ["Content-Encoding": coding.rawValue]))
            }
            server.route("/ok", respond: .ok("next"))
            for (path, _, says) in bad {
                do {
                    _ = try await client.get(server.url(path))
                    Issue.record("\(path) must fail")
                } catch let error as HTTPClientError {
                    #expect(error.kind == .decompressionFailed && error.description.contains(says), "\(path): \(error)")
                }
                await expectHTTPError(.decompressionFailed) {
                    let streamed = try await client.stream(HTTPClientRequest(url: server.url(path)))
                    for try await _ in streamed.body {}
                }
            }
            let next = try await client.get(server.url("/ok"))
            #expect(next.body == "next".bytes)
        }
    }

    /// Bytes after the end of the stream that begin no other are ignored, as after gzip's last member.
    @Test(arguments: ToolCoding.builtIn)
    func trailingGarbageIsIgnoredAsAfterGzip(_ coding: ToolCoding) async throws {
        let body = try await coding.compress(Self.text) + Array("garbage after the end".utf8)
        try await withClient { client, server in
            server.route("/", respond: .bytes(body, headers: ["Content-Encoding": coding.rawValue]))
            let collected = try await client.get(server.url("/"))
            #expect(collected.body == Self.text)
            let streamed = try await streamedBody(client, server.url("/"))
            #expect(streamed == Self.text)
        }
    }

    /// 64 MiB of zeros in a few hundred bytes: the ratio check stops it one chunk past the first MiB,
    /// collected or streamed; with the ratio out of the way, the size limit stops it.
    @Test(arguments: ToolCoding.builtIn)
    func bombsStopAtTheRatioAndAtTheSize(_ coding: ToolCoding) async throws {
        let bomb = try await coding.bomb(inflatedSize: 64 << 20)
        #expect(bomb.count < 64 << 10, "a bomb: \(bomb.count) bytes")
        try await withClient { client, server in
            server.route("/", respond: .bytes(bomb, headers: ["Content-Encoding": coding.rawValue]))
            await expectHTTPError(.decompressionFailed) { _ = try await client.get(server.url("/")) }
            let response = try await client.stream(HTTPClientRequest(url: server.url("/")))
            var total = 0
            do {
                for try await chunk in response.body {
                    #expect(chunk.count <= Inflater.chunkSize)
                    total += chunk.count
                }
                Issue.record("the streamed bomb must fail")
            } catch let error as HTTPClientError {
                #expect(error.kind == .decompressionFailed && error.description.contains("times its size"), "\(error)")
            }
            #expect(total <= (1 << 20) + Inflater.chunkSize)
        }
        try await withClient(configure: { $0.maxResponseBodySize = 3 << 20; $0.maxDecompressionRatio = 1 << 30 }) { client, server in
            server.route("/", respond: .bytes(bomb, headers: ["Content-Encoding": coding.rawValue]))
            do {
                _ = try await client.get(server.url("/"))
                Issue.record("the bomb must fail")
            } catch let error as HTTPClientError {
                #expect(error.kind == .decompressionFailed && error.description.contains("inflates past"), "\(error)")
            }
        }
    }

    /// With the trait off, a `br` or `zstd` body is left as it came, like any coding the client does not know.
    @Test func aCodingNotBuiltInIsLeftAsItCame() async throws {
        let unknown = ToolCoding.allCases.filter { !ToolCoding.builtIn.contains($0) }.map(\.rawValue) + ["compress"]
        try await withClient { client, server in
            for name in unknown {
                server.route("/\(name)", respond: .bytes(Array("opaque".utf8), headers: ["Content-Encoding": name]))
                let response = try await client.get(server.url("/\(name)"))
                #expect(response.body == "opaque".bytes)
            }
        }
    }
}
