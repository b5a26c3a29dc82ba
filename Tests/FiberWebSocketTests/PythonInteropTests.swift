import FiberWebSocket
import Foundation
import Testing

/// A Python `websockets` server (Scripts/ws_echo_server.py) on 127.0.0.1, stopped by PID.
final class PythonWebSocketServer: Sendable {
    let process: Process
    let port: Int

    static let isAvailable: Bool = {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["python3", "-c", "import websockets"]
        p.standardError = FileHandle.nullDevice
        do { try p.run() } catch { return false }
        p.waitUntilExit()
        return p.terminationStatus == 0
    }()

    init(_ extra: [String] = []) throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Scripts/ws_echo_server.py").path
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script, "0"] + extra
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        // The script prints its port once it listens: reading that line orders the test after it.
        var line = Data()
        while let byte = try out.fileHandleForReading.read(upToCount: 1), !byte.isEmpty, byte != Data([0x0A]) { line += byte }
        guard let port = Int(String(decoding: line, as: UTF8.self)) else {
            process.terminate()
            throw WebSocketError(.transport, "the Python server did not start")
        }
        self.port = port
    }

    func stop() {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }
}

@Suite("Interop with Python websockets", .enabled(if: PythonWebSocketServer.isAvailable), .timeLimit(.minutes(1)))
struct PythonInteropTests {
    @Test(arguments: [nil, PerMessageDeflate(), PerMessageDeflate(clientNoContextTakeover: true, serverNoContextTakeover: true)])
    func echoesThroughPython(compression: PerMessageDeflate?) async throws {
        let server = try PythonWebSocketServer()
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
        let server = try PythonWebSocketServer()
        defer { server.stop() }
        let events = await allEvents(WebSocketClient.connect(to: "ws://127.0.0.1:\(server.port)/close4000", configuration: quietConfiguration()))
        #expect(events == [.connected, .disconnected(code: 4000, reason: "python says bye")])
    }

    @Test func negotiatesPythonsSubprotocol() async throws {
        let server = try PythonWebSocketServer(["--subprotocol"])
        defer { server.stop() }
        let ws = try await WebSocketClient.open("ws://127.0.0.1:\(server.port)/", subprotocols: ["chat.v1", "chat.v2"],
                                                configuration: quietConfiguration())
        #expect(ws.subprotocol == "chat.v2")
        ws.close()
        #expect(ending(await allEvents(ws)).code == 1000)
    }
}
