import FiberRuntime

/// A transport that can close what it holds open (idle keep-alive connections)
/// when its client shuts down: `Fiber.shutdown(gracePeriod:)` calls `shutdown()`
/// once the requests in flight have ended.
public protocol ClosingTransport: FiberTransport {
    /// Closes the transport's idle connections; requests sent afterwards may fail.
    func shutdown() async
}

extension HTTPTransport: ClosingTransport {
    /// Whether this is `HTTPTransport.shared`, which every client made without a transport of its own uses.
    var isShared: Bool { client === HTTPTransport.shared.client }
}
