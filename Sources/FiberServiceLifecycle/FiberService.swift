import Fiber
import FiberWebSocket
import ServiceLifecycle

/// A `Service` that shuts a Fiber client down cleanly when its `ServiceGroup`
/// shuts down gracefully (SIGTERM, `gracefulShutdown()`, another service ending):
///
/// 1. new requests of the client fail at once (`FiberError.isShutdown`);
/// 2. the registered WebSockets are closed with 1001 (Going Away), and the
///    reconnecting ones stop reconnecting;
/// 3. the requests in flight may finish for up to `gracePeriod`, after which
///    they are cancelled;
/// 4. the transport's idle connections are closed (`Fiber.shutdown(gracePeriod:)`);
/// 5. `run()` returns once the sockets have disconnected too.
///
/// ```swift
/// let api = Fiber("https://api.example.com") { $0.transport = HTTPTransport(eventLoopGroup: .shared) }
/// let fiberService = FiberService(api)
/// let feed = fiberService.webSockets.register(ReconnectingWebSocket(connect: { WebSocketClient.connect(to: url) }))
/// let group = ServiceGroup(services: [fiberService, server], gracefulShutdownSignals: [.sigterm], logger: logger)
/// try await group.run()
/// ```
///
/// A group shuts its services down in the reverse of their order, each after
/// the one behind it has returned: list the client's service before the
/// services that send requests with it, so that it drains after they stopped.
/// When the group cancels the service instead (a cancellation signal, or a
/// graceful shutdown past the group's own limit), the grace period ends at once.
public struct FiberService: Service, CustomStringConvertible {
    /// The client it shuts down.
    public let fiber: Fiber
    /// How long requests in flight may take to finish once the shutdown began.
    public let gracePeriod: Duration
    /// How long the WebSockets' closing handshakes may take in all.
    public let webSocketCloseTimeout: Duration
    /// The WebSockets closed with 1001 on shutdown.
    public let webSockets: WebSocketRegistry

    /// A service for `fiber`.
    ///
    /// - Parameters:
    ///   - fiber: the client to drain when the service group shuts down.
    ///   - gracePeriod: how long requests in flight may still take (default 30 s:
    ///     Kubernetes' default termination grace period, so a pod's requests finish
    ///     before it is killed; set it below the group's or the platform's limit).
    ///   - webSockets: the sockets to close (default: a new, empty registry, `webSockets`).
    ///   - webSocketCloseTimeout: how long the closing handshakes may take (default
    ///     10 s, twice a connection's own default close timeout).
    public init(_ fiber: Fiber, gracePeriod: Duration = .seconds(30), webSockets: WebSocketRegistry = WebSocketRegistry(),
                webSocketCloseTimeout: Duration = .seconds(10)) {
        self.fiber = fiber
        self.gracePeriod = gracePeriod
        self.webSockets = webSockets
        self.webSocketCloseTimeout = webSocketCloseTimeout
    }

    /// Waits for the group's graceful shutdown (or the task's cancellation),
    /// then shuts the client and its WebSockets down as the type describes.
    ///
    /// Throws nothing: a cancellation is a shutdown without a grace period.
    public func run() async throws {
        let gracePeriod: Duration
        do {
            try await gracefulShutdown()
            gracePeriod = self.gracePeriod
        } catch {
            gracePeriod = .zero
        }
        // New requests fail before anything else closes: code that sees a socket
        // close and reacts with a request meets a client already shutting down.
        fiber.refuseNewRequests()
        // The sockets close while the requests drain: neither waits for the other.
        async let sockets: Void = webSockets.closeAll(code: WebSocketCloseCode.goingAway, reason: "going away",
                                                      timeout: webSocketCloseTimeout)
        await fiber.shutdown(gracePeriod: gracePeriod)
        await sockets
    }

    /// "FiberService(https://api.example.com)", as the group's log lines name it.
    public var description: String { "FiberService(\(fiber.baseURL))" }
}
