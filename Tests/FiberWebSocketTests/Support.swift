import Fiber
import FiberRuntime
import FiberTesting
@testable import FiberWebSocket
import Testing

/// Every event until the stream ends.
func allEvents(_ ws: some FiberWebSocket) async -> [WebSocketEvent] {
    var events: [WebSocketEvent] = []
    for await event in ws.events { events.append(event) }
    return events
}

/// The disconnection's code and the error, if any, from a finished event list.
func ending(_ events: [WebSocketEvent]) -> (code: UInt16?, reason: String?, error: WebSocketError?) {
    var error: WebSocketError?
    for event in events {
        if case .error(let e) = event { error = e }
        if case .disconnected(let code, let reason) = event { return (code, reason, error) }
    }
    return (nil, nil, error)
}

/// The messages among `events`.
func messages(_ events: [WebSocketEvent]) -> [WebSocketMessage] {
    events.compactMap { if case .message(let m) = $0 { m } else { nil } }
}

/// A server playing `steps`, a client connected to it with `configuration`,
/// every client event until the end, and the frames the server received.
func runScript(_ steps: [TestWebSocketServer.Step], handshake: TestWebSocketServer.Handshake = .init(),
               configuration: WebSocketConfiguration = quietConfiguration(), subprotocols: [String] = []) async throws
    -> (events: [WebSocketEvent], clientFrames: [WebSocketFrame]) {
    let server = try await TestWebSocketServer.start(behavior: .script(steps), handshake: handshake)
    let ws = WebSocketClient.connect(to: server.url, subprotocols: subprotocols, configuration: configuration)
    let events = await allEvents(ws)
    await server.waitForConnectionsToEnd()
    await server.shutdown()
    var frames: [WebSocketFrame] = []
    for await frame in server.clientFrames { frames.append(frame) }
    return (events, frames)
}

/// No keep-alive pings unless a test asks (they would add frames to what the server records).
func quietConfiguration() -> WebSocketConfiguration {
    var c = WebSocketConfiguration()
    c.pingInterval = nil
    return c
}

/// Raw server frame bytes (unmasked), built by hand.
func frame(_ first: UInt8, _ payload: [UInt8]) -> [UInt8] {
    precondition(payload.count < 126)
    return [first, UInt8(payload.count)] + payload
}

func closePayload(_ code: UInt16, _ reason: String = "") -> [UInt8] {
    [UInt8(code >> 8), UInt8(code & 0xFF)] + Array(reason.utf8)
}

/// The close code in the first close frame the client sent.
func sentCloseCode(_ frames: [WebSocketFrame]) -> UInt16? {
    guard let close = frames.first(where: { $0.opcode == .close }) else { return nil }
    guard close.payload.count >= 2 else { return 1005 }
    return UInt16(close.payload[0]) << 8 | UInt16(close.payload[1])
}

/// The `WebSocketError` a refused `Fiber.webSocket` throws, wrapped in `FiberError.networkError`;
/// records an issue and returns nil when `open` succeeds or throws anything else.
func refusal(_ open: () async throws -> some Any) async -> WebSocketError? {
    do {
        _ = try await open()
        Issue.record("a refused upgrade must throw")
    } catch let error as FiberError {
        guard case .networkError(let underlying) = error, let ws = underlying as? WebSocketError else {
            Issue.record("expected .networkError(WebSocketError), got \(error)")
            return nil
        }
        return ws
    } catch {
        Issue.record("expected a FiberError, got \(error)")
    }
    return nil
}
