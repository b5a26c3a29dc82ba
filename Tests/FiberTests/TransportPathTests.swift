import Fiber
import FiberRuntime
import FiberTesting
import Foundation
import Testing

/// The path from `Fiber` down to the runtime: one deadline instant, one loop,
/// a streamed body through the transport protocol, over real sockets.
@Suite("Request path from Fiber to the socket", .timeLimit(.minutes(1)))
struct TransportPathTests {
    @Test func theTransportGetsTheRequestsDeadlineAsOneInstant() async throws {
        let mock = MockTransport()
        mock.stubAll(.init(statusCode: 200))
        let fiber = Fiber("http://127.0.0.1:1") { $0.transport = mock }
        let response = try await fiber.send(FiberRequest(url: "http://127.0.0.1:1/x").timeout(30))
        let sent = try #require(mock.lastRequest)
        let deadline = try #require(sent.deadline)
        #expect(deadline == response.request.deadline, "the same instant, not a count of seconds converted back")
        let left = deadline - .now
        #expect(left > .seconds(25) && left <= .seconds(30))
        #expect(sent.timeoutInterval.map { $0 > 25 && $0 <= 30 } == true)
    }

    @Test func aDeadlineReachesTheSocketsTimer() async throws {
        // The client's own timers are far off: only the request's deadline can end it in time.
        try await withLiveServer(configure: { $0.readIdleTimeout = .seconds(120) }) { server, transport in
            server.route("/silent", respond: .fault(.silent))
            let fiber = Fiber(server.baseURL) { $0.transport = transport }
            let start = ContinuousClock.now
            await #expect(throws: FiberError.self) { try await fiber.send(FiberRequest(url: server.url("/silent")).timeout(0.3)) }
            // Wide: a loaded machine under a sanitizer lags by seconds.
            #expect(ContinuousClock.now - start < .seconds(30))
        }
    }

    @Test func aStreamedBodyGoesThroughTheTransportProtocol() async throws {
        try await withLiveServer { server, transport in
            server.route("POST", "/upload") { request in .ok("\(request.body.count) \(request.header("Transfer-Encoding") ?? "-")") }
            let chunks = (0..<8).map { _ in [UInt8](repeating: 0x61, count: 16 * 1024) }
            var request = TransportRequest(url: URL(string: server.url("/upload")), httpMethod: "POST")
            request.httpBodyStream = .stream {
                AsyncStream { continuation in
                    for chunk in chunks { continuation.yield(chunk) }
                    continuation.finish()
                }
            }
            let (data, head) = try await transport.send(request)
            #expect(head.statusCode == 200)
            #expect(String(decoding: data, as: UTF8.self) == "\(8 * 16 * 1024) chunked")
        }
    }

    @Test func aFileBodyGoesThroughTheTransportProtocol() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("fiber-transport-\(UUID()).bin").path
        try Data(repeating: 0x62, count: 300_000).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        try await withLiveServer { server, transport in
            server.route("PUT", "/file") { request in .ok("\(request.body.count) \(request.header("Content-Length") ?? "-")") }
            var request = TransportRequest(url: URL(string: server.url("/file")), httpMethod: "PUT")
            request.httpBodyStream = .file(path: path)
            let (data, _) = try await transport.send(request)
            #expect(String(decoding: data, as: UTF8.self) == "300000 300000")
        }
    }
}
