@testable import FiberRuntime
import FiberTesting
import Testing

/// A body that inflates a thousandfold is stopped within one output chunk
/// of a limit, whether collected or streamed, having read little of it.
@Suite("Decompression bombs", .timeLimit(.minutes(1)))
struct DecompressionBombTests {
    /// 256 MiB of zeros in about 250 KiB of gzip.
    static let bomb = CompressionBomb.gzip(inflatedSize: 256 << 20)

    @Test func theRatioIsCountedOnWhatZlibTook() throws {
        let inflater = try Inflater(encoding: "gzip", limits: .init(maxSize: 100 << 20, maxRatio: 1000))
        var out: [UInt8] = []
        // Handed the whole bomb at once, it still stops one chunk past the first MiB.
        #expect { try inflater.inflate(Self.bomb, into: &out) } throws: {
            ($0 as? HTTPClientError)?.kind == .decompressionFailed && "\($0)".contains("times its size")
        }
        #expect(out.count <= (1 << 20) + Inflater.chunkSize, "stopped within one chunk of the ratio check")
    }

    @Test func theSizeLimitStopsWithinOneChunk() throws {
        let inflater = try Inflater(encoding: "gzip", limits: .init(maxSize: 3 << 20, maxRatio: 1 << 30))
        var out: [UInt8] = []
        #expect { try inflater.inflate(Self.bomb, into: &out) } throws: { "\($0)".contains("inflates past") }
        #expect(out.count <= 3 << 20)
    }

    @Test func aCollectedBombFailsAfterReadingLittleOfIt() async throws {
        try await withClient { client, server in
            server.route("/", respond: .bytes(Self.bomb, headers: ["Content-Encoding": "gzip"]))
            server.route("/ok", respond: .ok("next"))
            let received = Locked(0)
            var options = HTTPClient.RequestOptions()
            options.downloadProgress = { bytes, _ in received.withLock { $0 = max($0, bytes) } }
            do {
                _ = try await client.get(server.url("/"), options: options)
                Issue.record("the bomb must fail")
            } catch let error as HTTPClientError {
                #expect(error.kind == .decompressionFailed && error.description.contains("times its size"), "\(error)")
            }
            // Inflated as it arrived: it failed on its first reads, not after collecting the whole compressed body.
            #expect(received.withLock { $0 } < Self.bomb.count / 2)
            #expect(try await client.get(server.url("/ok")).body == "next".bytes)
        }
    }

    @Test func aStreamedBombIsHandedOutAChunkAtATimeAndFails() async throws {
        try await withClient { client, server in
            // Written 64 KiB at a time, so that a read holds 64 KiB of gzip: 64 MiB once inflated.
            server.route("/", respond: TestResponse.bytes(Self.bomb, headers: ["Content-Encoding": "gzip"])
                .dripping(bytes: 64 << 10, every: .milliseconds(20)))
            let response = try await client.stream(HTTPClientRequest(url: server.url("/")))
            var largest = 0
            var total = 0
            do {
                for try await chunk in response.body {
                    largest = max(largest, chunk.count)
                    total += chunk.count
                }
                Issue.record("the bomb must fail")
            } catch let error as HTTPClientError {
                #expect(error.kind == .decompressionFailed, "\(error)")
            }
            #expect(largest <= Inflater.chunkSize, "one read of 64 KiB is not inflated whole into one chunk")
            #expect(total >= 512 << 10, "handed out a chunk at a time until the ratio check, not inflated whole first")
            #expect(total <= (1 << 20) + Inflater.chunkSize)
        }
    }
}
