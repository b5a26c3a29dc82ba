import FiberRuntime
import FiberWebSocket

/// A loopback WebSocket server for tests, benchmarks and the demo, on the
/// project's runtime: it answers the upgrade (`Handshake`), then echoes or
/// plays a script of exact bytes (`Behavior`), recording every frame clients
/// send in `clientFrames`.
///
/// ```swift
/// let server = try await TestWebSocketServer.start(behavior: .echo)
/// let ws = try await WebSocketClient.open(server.url)
/// ```
public final class TestWebSocketServer: Sendable {
    /// The loop that owns the listener and connections.
    public let loop: EventLoop
    /// The port it listens on (127.0.0.1).
    public let port: Int
    /// `ws://127.0.0.1:PORT/` (`wss://` with TLS), or `ws+unix://ENCODED-PATH/` on a Unix socket.
    public var url: String {
        if let path = listener.localAddress.path { return HTTPTarget(scheme: "ws+unix", host: path, port: 80, pathAndQuery: "/").description }
        return "\(tls == nil ? "ws" : "wss")://127.0.0.1:\(port)/"
    }
    /// The server side of TLS, when it serves `wss://`.
    public let tls: TLSConfiguration?
    /// Every frame received from clients, in order, unmasked.
    public let clientFrames: AsyncStream<WebSocketFrame>

    let behavior: Behavior
    let handshake: Handshake
    let frameSink: AsyncStream<WebSocketFrame>.Continuation
    private let listener: SocketListener
    private let state = Locked(State())

    private struct State {
        var tasks: [Int: Task<Void, Never>] = [:]
        var streams: [Int: SocketStream] = [:]
        var next = 0
        var accepted = 0
        var requests: [HTTP1Head] = []
        var acceptTask: Task<Void, Never>?
    }

    private init(listener: SocketListener, behavior: Behavior, handshake: Handshake, tls: TLSConfiguration?) {
        self.tls = tls
        self.listener = listener
        self.loop = listener.loop
        self.port = listener.port
        self.behavior = behavior
        self.handshake = handshake
        (clientFrames, frameSink) = AsyncStream.makeStream()
    }

    /// Starts listening on 127.0.0.1 at a free port, or on the Unix socket at
    /// `unixPath` (`ws+unix://`); with `tls` (a server configuration, such as
    /// `TestCertificates`' identity) it serves `wss://`.
    ///
    /// - Throws: `TransportError` when the socket cannot listen.
    public static func start(behavior: Behavior = .echo, handshake: Handshake = Handshake(), tls: TLSConfiguration? = nil,
                             on loop: EventLoop? = nil, backlog: Int32 = 511, unixPath: String? = nil) async throws -> TestWebSocketServer {
        let listener = if let unixPath {
            try await SocketListener.listen(unixPath: unixPath, backlog: backlog, on: loop)
        } else {
            try await SocketListener.listen(host: "127.0.0.1", port: 0, backlog: backlog, on: loop)
        }
        let server = TestWebSocketServer(listener: listener, behavior: behavior, handshake: handshake, tls: tls)
        let task = Task(executorPreference: server.loop) { await server.acceptConnections() }
        server.state.withLock { $0.acceptTask = task }
        return server
    }

    /// The upgrade requests received, in order.
    public var requests: [HTTP1Head] { state.withLock { $0.requests } }
    /// Connections accepted so far.
    public var acceptedCount: Int { state.withLock { $0.accepted } }

    /// Stops listening, closes every connection and waits for their tasks.
    public func shutdown() async {
        await listener.close()
        await state.withLock { $0.acceptTask }?.value
        let (tasks, streams) = state.withLock { (Array($0.tasks.values), Array($0.streams.values)) }
        for task in tasks { task.cancel() }
        for stream in streams { await stream.close() }
        for task in tasks { await task.value }
        frameSink.finish()
    }

    /// Waits until every connection open now has ended by itself (its client
    /// left): then every frame the clients sent is in `clientFrames`.
    public func waitForConnectionsToEnd() async {
        let tasks = state.withLock { Array($0.tasks.values) }
        for task in tasks { await task.value }
    }

    /// Closes every open connection at once (FIN), as a server going away would.
    public func closeConnections() async {
        let streams = state.withLock { Array($0.streams.values) }
        for stream in streams { await stream.close() }
    }

    private func acceptConnections() async {
        do {
            for try await stream in listener.connections {
                let id = state.withLock { s -> Int in
                    s.next += 1
                    s.accepted += 1
                    s.streams[s.next] = stream
                    return s.next
                }
                let task = Task(executorPreference: loop) {
                    if let tls = self.tls {
                        do {
                            try await stream.startTLS(tls, host: nil, timeout: .seconds(30))
                            await TestWebSocketServer.Connection(server: self, stream: stream).run()
                        } catch {
                            // A client that refused the certificate: nothing to serve.
                        }
                    } else {
                        await TestWebSocketServer.Connection(server: self, stream: stream).run()
                    }
                    self.state.withLock { s in
                        s.tasks[id] = nil
                        s.streams[id] = nil
                    }
                    await stream.close()
                }
                state.withLock { s in if s.streams[id] != nil { s.tasks[id] = task } }
            }
        } catch {
            // The listener closed.
        }
    }

    func record(_ head: HTTP1Head) { state.withLock { $0.requests.append(head) } }
}
