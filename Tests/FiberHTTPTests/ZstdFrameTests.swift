#if Zstd
@testable import FiberRuntime
import FiberTesting
import Testing

/// zstd's frames (RFC 8878): with and without their content size, one after
/// another, skippable ones, split anywhere; and the 8 MiB window bound.
@Suite("zstd frames", .timeLimit(.minutes(1)))
struct ZstdFrameTests {
    static let text = CompressedBodyTests.text

    /// Frame header descriptor, bits 7-6 (content size field) and 5 (single segment,
    /// which implies a content size): both zero when the frame does not state its size.
    private func statesContentSize(_ frame: [UInt8]) -> Bool { frame[4] & 0xE0 != 0 }

    @Test func framesWithAndWithoutTheirContentSizeDecode() async throws {
        let sized = try await CompressionTool.zstd(Self.text)
        let unsized = try await CompressionTool.zstd(Self.text, contentSize: false)
        #expect(statesContentSize(sized) && !statesContentSize(unsized))
        try await withClient { client, server in
            server.route("/sized", respond: .bytes(sized, headers: ["Content-Encoding": "zstd"]))
            server.route("/unsized", respond: .bytes(unsized, headers: ["Content-Encoding": "zstd"]))
            let fromSized = try await client.get(server.url("/sized"))
            #expect(fromSized.body == Self.text)
            let fromUnsized = try await client.get(server.url("/unsized"))
            #expect(fromUnsized.body == Self.text)
        }
    }

    /// Several frames, a skippable frame between them: every frame's output, in order,
    /// collected and streamed; and over the decoder directly, split at every point near the joins.
    @Test func consecutiveFramesAllDecodeInAnySplit() async throws {
        let first = try await CompressionTool.zstd(Array("first frame, ".utf8))
        let second = try await CompressionTool.zstd(Array("second frame".utf8), contentSize: false)
        // Magic 0x184D2A53, a 4-byte little-endian length, then that many bytes to skip.
        let skippable: [UInt8] = [0x53, 0x2A, 0x4D, 0x18, 5, 0, 0, 0, 1, 2, 3, 4, 5]
        let body = first + skippable + second
        try await withClient { client, server in
            server.route("/", respond: .bytes(body, headers: ["Content-Encoding": "zstd"]).dripping(bytes: 3, every: .milliseconds(1)))
            let joined = try await client.get(server.url("/"))
            #expect(joined.body == "first frame, second frame".bytes)
            let streamed = try await streamedBody(client, server.url("/"))
            #expect(streamed == "first frame, second frame".bytes)
        }
        let joins = [first.count, first.count + skippable.count]
        for split in joins.flatMap({ [$0 - 2, $0 - 1, $0, $0 + 1, $0 + 2] }) {
            let inflater = try Inflater(encoding: "zstd", limits: .init(maxSize: 1 << 20, maxRatio: 1000))
            var out: [UInt8] = []
            try inflater.inflate(Array(body[..<split]), into: &out)
            try inflater.inflate(Array(body[split...]), into: &out)
            try inflater.finish()
            #expect(String(decoding: out, as: UTF8.self) == "first frame, second frame", "split at \(split)")
        }
    }

    /// A frame asking for a 128 MiB window is refused before it allocates one; 8 MiB (RFC 9659's bound) is decoded.
    @Test func windowsPastEightMiBAreRefused() async throws {
        let large = try await CompressionTool.zeros(20 << 20, through: "zstd -q -c --long=27")
        let bounded = try await CompressionTool.zeros(20 << 20, through: "zstd -q -c --long=23")
        try await withClient(configure: { $0.maxDecompressionRatio = 1 << 30 }) { client, server in
            server.route("/large", respond: .bytes(large, headers: ["Content-Encoding": "zstd"]))
            server.route("/bounded", respond: .bytes(bounded, headers: ["Content-Encoding": "zstd"]))
            do {
                _ = try await client.get(server.url("/large"))
                Issue.record("a 128 MiB window must be refused")
            } catch let error as HTTPClientError {
                #expect(error.kind == .decompressionFailed && error.description.contains("memory"), "\(error)")
            }
            let decoded = try await client.get(server.url("/bounded"))
            #expect(decoded.body.count == 20 << 20)
        }
    }
}
#endif
