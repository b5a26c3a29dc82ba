#if Brotli
@testable import FiberRuntime
import FiberTesting
import Testing

/// Brotli's window is bounded at RFC 7932's 16 MiB: large-window streams are refused.
@Suite("Brotli windows", .timeLimit(.minutes(1)))
struct BrotliWindowTests {
    @Test func aLargeWindowStreamIsRefusedAndAStandardOneDecodes() async throws {
        let large = try await CompressionTool.zeros(20 << 20, through: "brotli -c -q 5 --large_window=30")
        let standard = try await CompressionTool.zeros(20 << 20, through: "brotli -c -q 5 --lgwin=24")
        try await withClient(configure: { $0.maxDecompressionRatio = 1 << 30 }) { client, server in
            server.route("/large", respond: .bytes(large, headers: ["Content-Encoding": "br"]))
            server.route("/standard", respond: .bytes(standard, headers: ["Content-Encoding": "br"]))
            await expectHTTPError(.decompressionFailed) { _ = try await client.get(server.url("/large")) }
            let decoded = try await client.get(server.url("/standard"))
            #expect(decoded.body.count == 20 << 20)
        }
    }
}
#endif
