import Fiber
import FiberRuntime
import FiberTesting
import Foundation
import Testing

/// Trailers through the `Fiber` API: on a collected `FiberResponse`, from a
/// `FiberStreamingResponse` once its body was read, and from a transport that
/// only sends.
@Suite struct TrailersThroughFiberTests {
    static let trailed: HTTPHeaders = ["X-Checksum": "abc123"]

    @Test func aCollectedResponseCarriesItsTrailers() async throws {
        try await withLiveServer { server, transport in
            server.route("/trailed", respond: .chunked(["Hello, ", "world"], trailers: Self.trailed))
            server.route("/plain", respond: .ok("plain"))
            let fiber = Fiber(server.baseURL) { $0.transport = transport }
            let response = try await fiber.get("/trailed")
            #expect(response.text == "Hello, world" && response.trailers == Self.trailed)
            #expect(response.replacingData(Data()).trailers == Self.trailed, "an interceptor's new body keeps them")
            let plain = try await fiber.get("/plain")
            #expect(plain.trailers == nil)
        }
    }

    @Test func aStreamedResponseHasItsTrailersOnceReadToTheEnd() async throws {
        try await withLiveServer { server, transport in
            server.route("/trailed", respond: .chunked(["Hello, ", "world"], trailers: Self.trailed))
            let fiber = Fiber(server.baseURL) { $0.transport = transport }
            let response = try await fiber.stream(FiberRequest(url: server.url("/trailed")))
            await expectFiberError({
                if case .networkError(let underlying) = $0 { (underlying as? HTTPClientError)?.kind == .trailersNotReady } else { false }
            }) { _ = try await response.trailers() }
            var text = ""
            for try await chunk in response.body { text += String(decoding: chunk, as: UTF8.self) }
            #expect(text == "Hello, world")
            let trailers = try await response.trailers()
            #expect(trailers == Self.trailed)

            let again = try await fiber.stream(FiberRequest(url: server.url("/trailed")))
            let collected = try await again.collect()
            #expect(collected.text == "Hello, world" && collected.trailers == Self.trailed, "collect() brings the trailers")
        }
    }

    /// A transport with `send` only: its response's trailers reach a collected
    /// response, and a streamed one through the default `stream`.
    @Test func aSendOnlyTransportsTrailersReachBothKindsOfResponse() async throws {
        let fiber = Fiber("http://127.0.0.1:9/") { $0.transport = TrailingTransport() }
        let collected = try await fiber.get("/")
        #expect(collected.text == "whole" && collected.trailers == Self.trailed)
        let streamed = try await fiber.stream(FiberRequest(url: "http://127.0.0.1:9/"))
        let collectedStream = try await streamed.collect()
        #expect(collectedStream.text == "whole" && collectedStream.trailers == Self.trailed)
    }

    private struct TrailingTransport: FiberTransport {
        func send(_ request: TransportRequest) async throws -> (Data, TransportResponse) {
            var response = TransportResponse(statusCode: 200, url: request.url)
            response.trailers = TrailersThroughFiberTests.trailed
            return (Data("whole".utf8), response)
        }
    }
}
