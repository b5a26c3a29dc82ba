import FiberRuntime
import FiberTesting
@testable import FiberWebSocket
import Foundation
import Testing

/// A WebSocket over a Unix domain socket (`ws+unix://`), and a missing socket as a typed error.
@Suite("WebSocket over a Unix socket", .timeLimit(.minutes(1)))
struct UnixSocketWebSocketTests {
    @Test func aWSUnixURLOpensAndEchoes() async throws {
        let path = "/tmp/fiber-ws-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).sock"
        defer { unlink(path) }
        let server = try await TestWebSocketServer.start(behavior: .echo, unixPath: path)
        #expect(server.url.hasPrefix("ws+unix://%2Ftmp%2Ffiber-ws-"))
        let ws = try await WebSocketClient.open(server.url, configuration: quietConfiguration())
        try await ws.send(.text("over a socket file"))
        var iterator = ws.events.makeAsyncIterator()
        var echoed: WebSocketMessage?
        for _ in 0..<4 {
            guard let event = await iterator.next() else { break }
            if case .message(let message) = event { echoed = message; break }
        }
        #expect(echoed == .text("over a socket file"))
        #expect(server.requests.first?.headers["Host"] == "localhost")
        ws.close(code: 1000, reason: "done")
        while await iterator.next() != nil {}
        await server.shutdown()
    }

    @Test func aMissingSocketIsATransportErrorNamingIt() async throws {
        let path = "/tmp/fiber-ws-missing-\(getpid()).sock"
        let url = HTTPTarget(scheme: "ws+unix", host: path, port: 80, pathAndQuery: "/").description
        await #expect {
            _ = try await WebSocketClient.open(url, configuration: quietConfiguration())
        } throws: { error in
            guard let error = error as? WebSocketError else { return false }
            return error.kind == .transport && error.transport?.kind == .noSuchSocket && "\(error)".contains(path)
        }
    }
}
