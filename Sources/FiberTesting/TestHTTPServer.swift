import FiberRuntime
import Synchronization

/// A loopback HTTP/1.1 server for tests, on the project's own runtime
/// (`SocketListener`, `SocketStream`, `HTTP1Parser` in request mode).
///
/// ```swift
/// let server = try await TestHTTPServer.start(on: loop)
/// server.route("GET", "/hello") { _ in .ok("hi") }
/// // … point a client at server.baseURL + "/hello" …
/// #expect(server.requestCount == 1)
/// await server.shutdown()
/// ```
///
/// It serves many requests per connection (keep-alive, pipelining), honours
/// `Connection: close` and HTTP/1.0, answers HEAD with the head only, sends
/// `100 Continue` when asked, reads request bodies framed by `Content-Length`
/// or chunked, records every request, and misbehaves on demand
/// (`TestResponse.fault(_:)`, `TestResponse.raw(_:thenClose:)`, delays,
/// drips, cut bodies). Bad requests get `400` and a closed connection; no
/// input from a client can crash it.
///
/// A final class rather than an actor: routes, counters and recordings sit
/// behind one mutex, so tests configure and inspect the server synchronously,
/// from any context, without `await`. The I/O belongs to the runtime's
/// actors pinned to `loop`, and each connection runs in a task that prefers
/// `loop` as its executor, so serving never leaves the loop's thread.
public final class TestHTTPServer: Sendable {
    /// The loop that owns the listener and every connection.
    public let loop: EventLoop
    /// The address the server listens on (an IP literal).
    public let host: String
    /// The port the server listens on (chosen by the system unless given).
    public let port: Int
    /// `http://HOST:PORT` (`https` with TLS), with an IPv6 host in brackets; no trailing slash.
    public let baseURL: String
    /// The configuration the server was started with.
    public let configuration: Configuration

    private let listener: SocketListener
    private let state = Locked(State())

    private struct State {
        var router = Router()
        var recorded: [TestRequest] = []
        var requestCount = 0
        var badRequestCount = 0
        var acceptedCount = 0
        var tlsHandshakes: [TLSConnectionInfo] = []
        var tlsFailures: [any Error] = []
        var connections: [Int: OpenConnection] = [:]
        var acceptTask: Task<Void, Never>?
        var shutdownTask: Task<Void, Never>?
    }

    private struct OpenConnection {
        let stream: SocketStream
        var task: Task<Void, Never>?
    }

    private init(listener: SocketListener, host: String, configuration: Configuration, baseURL: String? = nil) {
        self.listener = listener
        self.loop = listener.loop
        self.host = host
        self.port = listener.port
        self.baseURL = baseURL
            ?? "\(configuration.tls == nil ? "http" : "https")://\(host.contains(":") ? "[\(host)]" : host):\(listener.port)"
        self.configuration = configuration
    }

    /// Starts a server listening on `host` (an IP literal) and `port` (0: any
    /// free port), on `loop` (default: the next loop of the shared group).
    ///
    /// - Throws: `TransportError` when the socket cannot listen (`.addressInUse`,
    ///   `.eventLoopShutdown`, `.other` for a host that is not an IP literal).
    public static func start(
        host: String = "127.0.0.1", port: Int = 0, on loop: EventLoop? = nil,
        configuration: Configuration = Configuration()
    ) async throws -> TestHTTPServer {
        let listener = try await SocketListener.listen(host: host, port: port, on: loop, options: configuration.socketOptions)
        return TestHTTPServer(listener: listener, host: host, configuration: configuration).accepting()
    }

    /// Starts a server listening on the Unix domain socket at `path` (replacing a stale
    /// socket file there), on `loop`. Its `host` is the path, its `port` 0, and its
    /// `baseURL` `http+unix://` with the path percent-encoded.
    ///
    /// - Throws: `TransportError` when the socket cannot listen.
    public static func start(
        unixPath path: String, on loop: EventLoop? = nil, configuration: Configuration = Configuration()
    ) async throws -> TestHTTPServer {
        let listener = try await SocketListener.listen(unixPath: path, on: loop, options: configuration.socketOptions)
        let baseURL = HTTPTarget(scheme: "http+unix", host: path, port: 80, pathAndQuery: "").origin
        return TestHTTPServer(listener: listener, host: path, configuration: configuration, baseURL: baseURL).accepting()
    }

    /// This server, once it accepts connections.
    private func accepting() -> TestHTTPServer {
        let task = Task(executorPreference: loop) { await self.acceptConnections() }
        state.withLock { $0.acceptTask = task }
        return self
    }

    /// `baseURL` followed by `path` (which should start with `/`).
    public func url(_ path: String) -> String { baseURL + path }

    // MARK: Shutting down

    /// Stops listening, closes every connection (cancelling the tasks that
    /// serve them, handlers included) and waits until they have finished.
    /// Safe to call more than once, and concurrently: every call returns once
    /// the first has finished. Handlers should honour cancellation; one that
    /// never returns keeps this from returning.
    public func shutdown() async {
        let task = state.withLock { state -> Task<Void, Never> in
            if let task = state.shutdownTask { return task }
            let task = Task(executorPreference: loop) { await self.closeEverything() }
            state.shutdownTask = task
            return task
        }
        await task.value
    }

    /// Closes every open connection now (FIN), without stopping the listener:
    /// the clients' pooled connections go stale and new ones are accepted.
    /// A response in flight is cut short. Returns once they are closed.
    public func closeConnections() async {
        let open = state.withLock { Array($0.connections.values) }
        for connection in open {
            connection.task?.cancel()
            await connection.stream.close()
        }
        for connection in open { await connection.task?.value }
    }

    /// True once `shutdown()` has been called.
    public var isShutDown: Bool { state.withLock { $0.shutdownTask != nil } }

    private func closeEverything() async {
        await listener.close()
        await state.withLock { $0.acceptTask }?.value
        // No connection is admitted any more; the tasks remove themselves when done.
        await closeConnections()
    }

    // MARK: Accepting

    private func acceptConnections() async {
        do {
            for try await stream in listener.connections { await admit(stream) }
        } catch {
            // Cancelled; shutdown closes the listener.
        }
    }

    private func admit(_ stream: SocketStream) async {
        let number = state.withLock { state -> Int? in
            guard state.shutdownTask == nil else { return nil }
            state.acceptedCount += 1
            state.connections[state.acceptedCount] = OpenConnection(stream: stream)
            return state.acceptedCount
        }
        guard let number else {
            await stream.close()
            return
        }
        let task = Task(executorPreference: loop) {
            if await self.startTLS(on: stream) {
                var connection = HTTPConnection(server: self, stream: stream, number: number)
                await connection.run()
            }
            self.state.withLock { _ = $0.connections.removeValue(forKey: number) }
        }
        state.withLock { state in
            // The task may already have finished and removed its entry.
            if state.connections[number] != nil { state.connections[number]?.task = task }
        }
    }

    /// Runs the server's side of the handshake when the server speaks TLS; false when it failed (the stream is closed).
    private func startTLS(on stream: SocketStream) async -> Bool {
        guard let tls = configuration.tls else { return true }
        do {
            let info = try await stream.startTLS(tls, host: nil, timeout: configuration.tlsHandshakeTimeout)
            state.withLock { $0.tlsHandshakes.append(info) }
            return true
        } catch {
            state.withLock { $0.tlsFailures.append(error) }
            await stream.close()
            return false
        }
    }

    // MARK: Used by connections

    /// The handler for a request, from the routes as they are now.
    func handler(for request: TestRequest) -> TestHandler {
        state.withLock { $0.router }.handler(method: request.method, path: request.path)
    }

    /// Numbers, builds and records a request; returns it.
    func record(_ build: (_ sequenceNumber: Int) -> TestRequest) -> TestRequest {
        state.withLock { state in
            state.requestCount += 1
            let request = build(state.requestCount)
            if configuration.recordsRequests { state.recorded.append(request) }
            return request
        }
    }

    /// Counts a request the server could not parse (answered 400, 413 or 431).
    func noteBadRequest() {
        state.withLock { $0.badRequestCount += 1 }
    }
}

// MARK: - Routes

extension TestHTTPServer {
    /// Answers requests whose path (without the query) is exactly `path` with
    /// `handler`, for `method` or, with nil, any method. A HEAD request also
    /// matches a GET route (the body is not sent). The most specific route wins;
    /// among equals, the last registered (see `Router`).
    public func route(_ method: String? = nil, _ path: String, _ handler: @escaping TestHandler) {
        state.withLock { $0.router.add(method: method, pattern: .exact(path), handler: handler) }
    }

    /// Answers requests whose path is exactly `path` with `handler`, for any method.
    public func route(_ path: String, _ handler: @escaping TestHandler) {
        route(nil, path, handler)
    }

    /// Answers requests whose path starts with `prefix` (`/files/`) with
    /// `handler`, for `method` or any method. Longer prefixes win over shorter
    /// ones, and exact routes over prefixes.
    public func route(_ method: String? = nil, prefix: String, _ handler: @escaping TestHandler) {
        state.withLock { $0.router.add(method: method, pattern: .prefix(prefix), handler: handler) }
    }

    /// Answers requests for exactly `path` with the same `response` every time.
    public func route(_ method: String? = nil, _ path: String, respond response: TestResponse) {
        route(method, path) { _ in response }
    }

    /// Answers requests for exactly `path`, whatever their method, with the same `response` every time.
    public func route(_ path: String, respond response: TestResponse) {
        route(nil, path, respond: response)
    }

    /// Answers requests for paths starting with `prefix` with the same `response` every time.
    public func route(_ method: String? = nil, prefix: String, respond response: TestResponse) {
        route(method, prefix: prefix) { _ in response }
    }

    /// Answers every request no route matches (instead of `404 Not Found`).
    public func setDefaultHandler(_ handler: @escaping TestHandler) {
        state.withLock { $0.router.defaultHandler = handler }
    }

    /// Forgets every route and the default handler: everything is `404` again.
    public func removeAllRoutes() {
        state.withLock { $0.router.removeAll() }
    }
}

// MARK: - Recording

extension TestHTTPServer {
    /// Every request received in full so far, in the order they completed
    /// (empty when `configuration.recordsRequests` is off). A request is
    /// recorded before its handler runs, so a client that has its response
    /// always finds its request here.
    public func recordedRequests() -> [TestRequest] { state.withLock { $0.recorded } }

    /// The last request received in full, if any (nil when recording is off).
    public var lastRequest: TestRequest? { state.withLock { $0.recorded.last } }

    /// How many requests were received in full.
    public var requestCount: Int { state.withLock { $0.requestCount } }

    /// How many requests could not be parsed (answered 400, 413 or 431).
    public var badRequestCount: Int { state.withLock { $0.badRequestCount } }

    /// How many connections were accepted since the start.
    public var connectionCount: Int { state.withLock { $0.acceptedCount } }

    /// What each successful TLS handshake settled, in order (resumed sessions, ALPN, client certificates).
    public var tlsHandshakes: [TLSConnectionInfo] { state.withLock { $0.tlsHandshakes } }

    /// The errors of the TLS handshakes that failed, in order.
    public var tlsFailures: [any Error] { state.withLock { $0.tlsFailures } }

    /// How many connections are open now (accepted and not yet closed by either side).
    public var openConnectionCount: Int { state.withLock { $0.connections.count } }

    /// Waits until at least `count` requests were received in full, and returns the recorded ones.
    ///
    /// - Throws: `TestHTTPServerError` after `timeout`; `CancellationError`.
    @discardableResult
    public func waitForRequests(_ count: Int, timeout: Duration = .seconds(10)) async throws -> [TestRequest] {
        try await waitUntil("\(count) requests", timeout: timeout) { $0.requestCount >= count }
        return recordedRequests()
    }

    /// Waits until exactly `count` connections are open (for example 0 once a client closed its pool).
    ///
    /// - Throws: `TestHTTPServerError` after `timeout`; `CancellationError`.
    public func waitForOpenConnections(_ count: Int, timeout: Duration = .seconds(10)) async throws {
        try await waitUntil("\(count) open connections", timeout: timeout) { $0.openConnectionCount == count }
    }

    /// Polls `condition` every 2 ms until it holds.
    ///
    /// - Throws: `TestHTTPServerError` after `timeout`; `CancellationError`.
    public func waitUntil(
        _ what: String = "condition", timeout: Duration = .seconds(10), _ condition: (TestHTTPServer) -> Bool
    ) async throws {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        while !condition(self) {
            guard clock.now < deadline else {
                throw TestHTTPServerError("timed out after \(timeout) waiting for \(what)")
            }
            try await Task.sleep(for: .milliseconds(2))
        }
    }
}
