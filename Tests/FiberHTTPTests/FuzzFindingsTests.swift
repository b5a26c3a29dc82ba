@testable import FiberRuntime
import FiberTesting
import Testing

/// Inputs the fuzz targets (Fuzz/) found breaking a rule, kept as tests once fixed.
@Suite("Fuzz findings: HTTP/1.1, inflating, URLs", .timeLimit(.minutes(1)))
struct FuzzFindingsTests {
    static let text = Array(String(repeating: "The quick brown fox jumps over the lazy dog. ", count: 50).utf8)

    /// llhttp reads a one- or two-digit status; no status below 100 means anything, so none is a final response.
    @Test func aStatusBelow100IsAMalformedResponse() async throws {
        try await withClient { client, server in
            server.route("/one", respond: .raw("HTTP/1.1 1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", thenClose: true))
            server.route("/two", respond: .raw("HTTP/1.1 44 Odd\r\nContent-Length: 0\r\n\r\n", thenClose: true))
            for path in ["/one", "/two"] {
                await expectHTTPError(.malformedResponse) { _ = try await client.get(server.url(path)) }
            }
        }
    }

    /// Raw deflate sent as `deflate` inflates whatever the reads' sizes: the framing is told
    /// from the first two bytes, and a read of one byte used to settle it on zlib alone.
    @Test func rawDeflateInflatesWhenTheFirstReadIsOneByte() throws {
        let raw = compress(Self.text, windowBits: -15)
        for firstRead in [1, 2, raw.count] {
            let inflater = try Inflater(encoding: "deflate", limits: .init(maxSize: 1 << 20, maxRatio: 100))
            var output: [UInt8] = []
            try inflater.inflate(Array(raw[..<firstRead]), into: &output)
            try inflater.inflate(Array(raw[firstRead...]), into: &output)
            try inflater.finish()
            #expect(output == Self.text, "first read of \(firstRead) bytes")
        }
    }

    @Test func rawDeflateDrippedByteByByteArrivesWhole() async throws {
        let raw = compress(Self.text, windowBits: -15)
        try await withClient { client, server in
            server.route("/", respond: .bytes(raw, headers: ["Content-Encoding": "deflate"]).dripping(bytes: 1, every: .milliseconds(1)))
            let response = try await client.get(server.url("/"))
            #expect(response.body == Self.text)
        }
    }

    /// After a gzip member, a byte that begins no member makes the rest trailing garbage,
    /// even when a later read starts with gzip's magic number; a lone first byte of it at
    /// the end is garbage too. Whole or in pieces, the answer is the same.
    @Test(arguments: [[0x05, 0x1f, 0x8b, 0x08, 0x00], [0x1f], [0x1f, 0x00, 0x1f, 0x8b]] as [[UInt8]])
    func trailingBytesAfterAGzipMemberAreIgnoredInAnySplit(trailer: [UInt8]) throws {
        let body = compress(Self.text, windowBits: 31) + trailer
        let member = body.count - trailer.count
        for cuts in [[body.count], [member + 1, body.count], [member, member + 1, body.count]] {
            let inflater = try Inflater(encoding: "gzip", limits: .init(maxSize: 1 << 20, maxRatio: 100))
            var output: [UInt8] = []
            var start = 0
            for end in cuts {
                try inflater.inflate(Array(body[start..<end]), into: &output)
                start = end
            }
            try inflater.finish()
            #expect(output == Self.text, "cuts \(cuts)")
        }
    }

    /// A host is used as it decodes (in `Host`, for TLS and DNS): an escaped line break or
    /// space would split the request's head, an escaped `%` reads differently written back.
    @Test(arguments: ["http://a%0d%0aX-Injected:%20x/", "http://a%20b/", "https://host%0a/", "http://ho%2541/", "http://a%2Fb/"])
    func aHostWithAnEscapedDelimiterIsAnInvalidURL(url: String) {
        #expect(throws: HTTPClientError.self) { try HTTPTarget(url) }
        let webSocketURL = url.replacing("http", with: "ws", maxReplacements: 1)
        #expect(throws: HTTPClientError.self) { try HTTPTarget(webSocketURL, schemes: .webSocket) }
    }
}
