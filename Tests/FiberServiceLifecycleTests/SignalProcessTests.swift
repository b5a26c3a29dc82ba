import FiberRuntime
import FiberTesting
import FiberWebSocket
import Foundation
import Testing

/// `FiberLifecycleProbe`, built beside the test bundle (the test target depends on it).
enum ProbeBinary {
    static let path = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        .appendingPathComponent("FiberLifecycleProbe").path
    static var exists: Bool { FileManager.default.isExecutableFile(atPath: path) }
}

/// A ServiceGroup with the Fiber service in a child process, stopped by SIGTERM
/// as a platform stops a service.
@Suite(.timeLimit(.minutes(2)), .enabled(if: ProbeBinary.exists, "FiberLifecycleProbe is not built"))
struct SignalProcessTests {
    @Test func sigtermLetsTheRequestInFlightFinishClosesTheWebSocketWith1001AndExitsZero() async throws {
        let held = try await HeldServer.start()
        let webSockets = try await TestWebSocketServer.start()
        let frames = Locked<[WebSocketFrame]>([])
        let recording = Task { for await frame in webSockets.clientFrames { frames.withLock { $0.append(frame) } } }
        let log = NSTemporaryDirectory() + "fiber-lifecycle-\(UUID().uuidString).log"
        defer { try? FileManager.default.removeItem(atPath: log) }
        let output = { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }

        let child = try ChildProcess.spawn(ProbeBinary.path, arguments: [held.baseURL, webSockets.url], output: log)
        try await waitUntil("the probe's request in flight and its socket connected", timeout: .seconds(30)) {
            await held.gate.waiting == 1 && output().contains("websocket: connected")
        }
        kill(child.pid, SIGTERM)
        // The shutdown began: the socket's close reached the server while the request is still held.
        try await waitUntil("the close frame", timeout: .seconds(30)) {
            frames.withLock { $0.contains { $0.opcode == .close } }
        }
        await held.gate.open()

        let succeeded = await child.waitForSuccess(timeout: .seconds(30))
        let text = output()
        #expect(succeeded, "\(child.exitDescription): \(text)")
        #expect(text.contains("in-flight request answered: 200 slow done"), "\(text)")
        #expect(text.contains("a request after the shutdown was refused"), "\(text)")
        #expect(text.contains("the group shut down"), "\(text)")
        #expect(held.server.requestCount == 1, "the refused request was not sent")
        let close = frames.withLock { $0.first { $0.opcode == .close } }
        #expect(close.map { Array($0.payload.prefix(2)) } == [0x03, 0xE9], "close code 1001")
        #expect(webSockets.acceptedCount == 1, "no reconnection")
        await webSockets.shutdown()
        await recording.value
        await held.finish()
    }
}
