@testable import FiberRuntime
import FiberTesting
import Testing

/// Honest compressed bodies arrive whole, in any split, collected or streamed.
@Suite("Compressed bodies", .timeLimit(.minutes(1)))
struct CompressedBodyTests {
    static let text = Array((0..<40_000).map { "line \($0) of a log that compresses well\n" }.joined().utf8)

    /// A large, honest compressed body still inflates whole, streamed and collected, in pieces of any size.
    @Test func aLegitimateCompressedBodyInflatesWhole() async throws {
        let text = String(decoding: Self.text, as: UTF8.self)
        let gzip = compress(Self.text, windowBits: 31)
        try await withClient { client, server in
            server.route("/", respond: .bytes(gzip, headers: ["Content-Encoding": "gzip"]).dripping(bytes: 7_919, every: .milliseconds(1)))
            #expect(try await client.get(server.url("/")).body == Array(text.utf8))
            let streamed = try await streamedBody(client, server.url("/"))
            #expect(streamed == Array(text.utf8))
        }
    }

    /// A gzip body of several members (RFC 1952 §2.2), as a server that compresses piece by piece sends it:
    /// every member is inflated, none dropped; zero padding after the last is ignored.
    @Test func everyMemberOfAMultiMemberGzipBodyArrives() async throws {
        let half = Self.text.count / 2
        let members = compress(Array(Self.text[..<half]), windowBits: 31) + compress(Array(Self.text[half...]), windowBits: 31)
        try await withClient { client, server in
            server.route("/", respond: .bytes(members + [0, 0, 0, 0], headers: ["Content-Encoding": "gzip"])
                .dripping(bytes: 4_093, every: .milliseconds(1)))
            #expect(try await client.get(server.url("/")).body == Self.text)
            let streamed = try await streamedBody(client, server.url("/"))
            #expect(streamed == Self.text)
        }
    }

    /// Many small members in one read, each a 64 KiB chunk of output: still a chunk at a time.
    @Test func manyMembersInOneReadAreHandedOutAChunkAtATime() throws {
        let member = compress([UInt8](repeating: 0, count: Inflater.chunkSize), windowBits: 31)
        let body = Array([[UInt8]](repeating: member, count: 64).joined())
        let inflater = try Inflater(encoding: "gzip", limits: .init(maxSize: 100 << 20, maxRatio: 1 << 20))
        var total = 0
        var offset = 0
        var calls = 0
        while offset < body.count || inflater.hasPendingOutput {
            var out: [UInt8] = []
            offset += try body[offset...].withUnsafeBytes { try inflater.inflate($0, into: &out, maxOutput: Inflater.chunkSize) }
            #expect(out.count <= Inflater.chunkSize, "one call made \(out.count) bytes")
            total += out.count
            calls += 1
            if calls > 1_000 { break }
        }
        #expect(total == 64 * Inflater.chunkSize)
    }

    /// A redirect's body is never read when it is followed, so a bad one (plain text labelled gzip)
    /// does not fail the request; one returned as it is (not followed) is inflated like any other.
    @Test func aRedirectsBodyIsInflatedOnlyWhenItIsReturned() async throws {
        try await withClient { client, server in
            server.route("/bad", respond: TestResponse.bytes(Array("this is not gzip".utf8), status: 302,
                                                             headers: ["Location": "/ok", "Content-Encoding": "gzip"]))
            server.route("/good", respond: TestResponse.bytes(compress(Array("moved".utf8), windowBits: 31), status: 302,
                                                              headers: ["Location": "/ok", "Content-Encoding": "gzip"]))
            server.route("/ok", respond: .ok("arrived"))
            let followed = try await client.get(server.url("/bad"))
            #expect(followed.status == 200 && followed.body == Array("arrived".utf8) && followed.redirectCount == 1)
            var options = HTTPClient.RequestOptions()
            options.redirects = .never
            let returned = try await client.get(server.url("/good"), options: options)
            #expect(returned.status == 302 && returned.body == Array("moved".utf8))
            await expectHTTPError(.decompressionFailed) { _ = try await client.get(server.url("/bad"), options: options) }
        }
    }

    /// Split anywhere, even inside the magic number between two members.
    @Test func membersInflateInAnySplit() throws {
        let first = compress(Array("first member, ".utf8), windowBits: 31)
        let second = compress(Array("second member".utf8), windowBits: 31)
        let body = first + second
        for split in [first.count - 1, first.count, first.count + 1, first.count + 2, body.count - 3] {
            let inflater = try Inflater(encoding: "gzip", limits: .init(maxSize: 1 << 20, maxRatio: 1000))
            var out: [UInt8] = []
            try inflater.inflate(Array(body[..<split]), into: &out)
            try inflater.inflate(Array(body[split...]), into: &out)
            try inflater.finish()
            #expect(String(decoding: out, as: UTF8.self) == "first member, second member", "split at \(split)")
        }
    }
}
