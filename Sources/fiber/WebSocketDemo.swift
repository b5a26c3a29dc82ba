import FiberRuntime
import FiberTesting
import FiberWebSocket

/// The demo's WebSocket echo session: the loopback WebSocket test server in
/// this process, text and typed JSON messages, compression, a clean close.
enum WebSocketDemo {
    struct Greeting: Codable, Sendable { let from: String; let count: Int }

    static func run() async throws {
        let server = try await TestWebSocketServer.start(handshake: .init(deflate: true))
        print("WebSocket echo server on \(server.url)")
        var configuration = WebSocketConfiguration()
        configuration.compression = PerMessageDeflate()
        let socket = try await WebSocketClient.open(server.url, configuration: configuration)
        print("connected\(socket.compression != nil ? " with permessage-deflate" : "")")
        var events = socket.events.makeAsyncIterator()
        try await socket.send(.text("Hello over Fiber's WebSocket"))
        try await socket.send(.json(Greeting(from: "fiber demo", count: 3)))
        var answered = 0
        while answered < 2, let event = await events.next() {
            guard case .message(let message) = event else { continue }
            answered += 1
            if answered == 1, case .text(let text) = message {
                print("echo: \(text)")
            } else if let greeting = try? message.decode(Greeting.self) {
                print("typed echo: Greeting(from: \(greeting.from), count: \(greeting.count))")
            }
        }
        socket.close(code: 1000, reason: "demo over")
        while let event = await events.next() {
            if case .disconnected(let code, _) = event {
                print("closed with \(code.map(String.init) ?? "no code")")
                break
            }
        }
        await server.shutdown()
    }
}
