import FiberRuntime

extension Fiber {
    /// How a shutdown went.
    public struct ShutdownOutcome: Sendable, Hashable {
        /// True when requests were still in flight at the end of the grace period
        /// (or when the calling task was cancelled) and were cancelled.
        public var cancelledRequests: Bool
    }

    /// Shuts the client down gracefully: refuses new requests from now on, lets
    /// the requests in flight finish for up to `gracePeriod`, cancels those still
    /// running after it, then closes the transport's idle connections.
    ///
    /// - A request sent once the shutdown began fails at once, before any
    ///   interceptor runs, with `FiberError.networkError` holding a
    ///   `ShutdownError` (`FiberError.isShutdown`).
    /// - A request in flight is one between `send`/`stream` being called and its
    ///   result (for `stream`, its head) reaching the caller, retries included.
    ///   Past the grace period the task that sent it is cancelled, so it ends with
    ///   `FiberError.cancelled` (and the task sees itself cancelled).
    /// - The transport is closed when it is a `ClosingTransport` (such as
    ///   `HTTPTransport`), except `HTTPTransport.shared`, which other clients of
    ///   the process use: give the client a transport of its own to have its
    ///   connections closed.
    /// - Cancelling the calling task ends the grace period at once.
    /// - It may be called more than once; later calls wait for the same requests.
    ///   A client that was shut down stays shut down.
    ///
    /// Throws nothing.
    ///
    /// - Returns: whether requests had to be cancelled.
    @discardableResult
    public func shutdown(gracePeriod: Duration = .seconds(30)) async -> ShutdownOutcome {
        let cancelled = await drain.drain(gracePeriod: gracePeriod)
        if let transport = transport as? any ClosingTransport, (transport as? HTTPTransport)?.isShared != true {
            await transport.shutdown()
        }
        return ShutdownOutcome(cancelledRequests: cancelled)
    }

    /// Refuses new requests from now on, as `shutdown(gracePeriod:)` does first, and
    /// returns at once: for a caller that must know new requests fail before it
    /// goes on to close other things, then calls `shutdown(gracePeriod:)`.
    package func refuseNewRequests() { drain.refuseNewRequests() }

    /// True once `shutdown(gracePeriod:)` was called: new requests are refused.
    public var isShuttingDown: Bool { drain.isShuttingDown }

    /// Requests in flight now (see `shutdown(gracePeriod:)` for what counts).
    public var inFlightRequestCount: Int { drain.inFlightCount }
}
