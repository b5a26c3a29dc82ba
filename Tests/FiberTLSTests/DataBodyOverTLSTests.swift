import FiberRuntime
import FiberTesting
import Foundation
import Testing

/// A `Data` request body and a body collected as `Data` cross TLS whole, large enough that
/// the engine and the socket take them in many parts.
@Suite("Data bodies over TLS", .timeLimit(.minutes(1)))
struct DataBodyOverTLSTests {
    @Test func dataBodiesCrossTLSWhole() async throws {
        let body = Data(patternedBytes(3 << 20, seed: 5))
        try await withTLSServer { client, server, _ in
            server.route("POST", "/echo") { request in .bytes(request.body) }
            let request = try HTTPClientRequest(url: server.url("/echo"), method: "POST", body: .data(body))
            let (head, data) = try await client.executeCollectingData(request, options: .init(), on: nil)
            #expect(head.status == 200 && data == body)
        }
    }
}
