import FiberTesting
import FiberWebSocket
import Foundation
import Testing

/// A Python `websockets` server (Scripts/ws_echo_server.py) on 127.0.0.1, stopped by PID.
extension PythonPeer {
    static let webSocketsAvailable = PythonPeer.canImport("websockets")

    static func webSocketServer(_ extra: [String] = []) throws -> PythonPeer {
        try PythonPeer(script: "ws_echo_server.py", arguments: extra)
    }
}

@Suite("Interop with Python websockets", .enabled(if: PythonPeer.webSocketsAvailable), .timeLimit(.minutes(1)))
struct PythonInteropTests {
    @Test(arguments: [nil, PerMessageDeflate(), PerMessageDeflate(clientNoContextTakeover: true, serverNoContextTakeover: true)])
    func echoesThroughPython(compression: PerMessageDeflate?) async throws {
        let server = try PythonPeer.webSocketServer()
        defer { server.stop() }
        var configuration = quietConfiguration()
        configuration.compression = compression
        configuration.maxOutgoingFrameSize = 16 * 1024
        let ws = try await WebSocketClient.open("ws://127.0.0.1:\(server.port)/", configuration: configuration)
        #expect((ws.compression != nil) == (compression != nil))
        let sent: [WebSocketMessage] = [
            .text("hello, python"), .text("κόσμε 😀"), .binary([0, 1, 2, 3, 255]),
            .binary((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 13) }),
            .text(String(repeating: "repeat after me ", count: 2000)),
        ]
        for m in sent { try await ws.send(m) }
        try await ws.ping([1, 2, 3])
        var received: [WebSocketMessage] = []
        for await event in ws.events {
            if case .message(let m) = event { received.append(m) }
            if received.count == sent.count { ws.close(code: 1000, reason: "thanks") }
            if case .disconnected(let code, _) = event { #expect(code == 1000) }
        }
        #expect(received == sent)
    }

    @Test func reportsPythonsCloseCodeAndReason() async throws {
        let server = try PythonPeer.webSocketServer()
        defer { server.stop() }
        let events = await allEvents(WebSocketClient.connect(to: "ws://127.0.0.1:\(server.port)/close4000", configuration: quietConfiguration()))
        #expect(events == [.connected, .disconnected(code: 4000, reason: "python says bye")])
    }

    @Test func negotiatesPythonsSubprotocol() async throws {
        let server = try PythonPeer.webSocketServer(["--subprotocol"])
        defer { server.stop() }
        let ws = try await WebSocketClient.open("ws://127.0.0.1:\(server.port)/", subprotocols: ["chat.v1", "chat.v2"],
                                                configuration: quietConfiguration())
        #expect(ws.subprotocol == "chat.v2")
        ws.close()
        #expect(ending(await allEvents(ws)).code == 1000)
    }
}
