/// When the trailers of a streamed body may be read, as a pure value: once
/// its consumer has read the body to its end, as Go fills `Response.Trailer`
/// at the body's EOF. Before that the answer is not known yet, and the
/// caller hears so at once rather than waiting: nobody else reads the body
/// for it, so a wait could be forever.
///
/// The connection records the end (`bodyEnded`) or the failure before it
/// finishes the body's buffer, so the consumer that reads the end
/// (`consumerReadEnd`) always finds the trailers recorded.
package struct StreamedTrailers: Sendable {
    private enum State: Sendable {
        case receiving
        /// The body ended on the wire with these trailers; its consumer has not read the end yet.
        case ended(HTTPHeaders?)
        case failed(HTTPClientError)
        /// The consumer read the end.
        case read(HTTPHeaders?)
    }

    private var state = State.receiving

    package init() {}

    /// The body ended on the wire, followed by `trailers` (nil: none).
    package mutating func bodyEnded(trailers: HTTPHeaders?) {
        guard case .receiving = state else { return }
        state = .ended(trailers)
    }

    /// The body failed before its end.
    package mutating func bodyFailed(_ error: HTTPClientError) {
        guard case .receiving = state else { return }
        state = .failed(error)
    }

    /// The consumer was handed the end of the body.
    package mutating func consumerReadEnd() {
        guard case .ended(let trailers) = state else { return }
        state = .read(trailers)
    }

    /// The trailers, nil when there were none.
    ///
    /// - Throws: `HTTPClientError`: the body's own failure if it failed, else
    ///   `.trailersNotReady` while the body has not been read to its end.
    package func trailers() throws(HTTPClientError) -> HTTPHeaders? {
        switch state {
        case .read(let trailers): return trailers
        case .failed(let error): throw error
        case .receiving, .ended:
            throw HTTPClientError(.trailersNotReady, "read the body to its end before asking for its trailers")
        }
    }
}
