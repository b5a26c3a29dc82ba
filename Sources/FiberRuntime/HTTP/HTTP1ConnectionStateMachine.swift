/// The rules of one HTTP/1.1 connection, as a pure value: which response
/// heads are interim, final or refused, when a body is too large, when an
/// exchange is over, whether the connection may be reused, whether a failed
/// request may be retried on a new connection, and which timer guards the
/// read. It holds no socket and no bytes; `HTTP1Connection` feeds it events
/// and performs what it answers.
///
/// One exchange at a time (no pipelining). An exchange has two halves, the
/// request going out and the response coming in, and ends when both are
/// done: a server may answer before it has read the whole request.
///
/// Reuse: only when the response was read to its end, the request was sent
/// whole, no byte followed the response, and neither side said
/// `Connection: close`, in the head or a trailer section (a close-delimited
/// body says it by ending).
///
/// Retry: a request that failed on a *reused* connection which closed or
/// failed before any byte of the response, and that was idempotent or not
/// written at all, may go once more on a new connection: the server most
/// likely closed the idle connection just as it was leased.
struct HTTP1ConnectionStateMachine {
    /// Identifies an exchange, so that late news about an earlier one (a
    /// cancelled task, a send that finished) is told apart and ignored.
    typealias ExchangeID = Int

    /// What the rules need to know about a request. (No `ContinuousClock.Instant`
    /// here or in the state: its layout is resilient, which would size the whole
    /// machine at run time and make every event copy it through witness tables.)
    struct Request {
        var isIdempotent: Bool
        /// The most body bytes read into memory; nil when the body is streamed to the caller.
        var collectLimit: Int?
        /// Fail when no byte arrives for this long (nil: never).
        var readIdle: Duration?
        /// Fail when the final head has not arrived this long after the request was sent whole (nil: never).
        var responseHead: Duration?
        /// 1xx responses accepted before the final one.
        var maxInterimResponses: Int

        init(isIdempotent: Bool, collectLimit: Int?, bounds: ExchangeBounds) {
            self.isIdempotent = isIdempotent
            self.collectLimit = collectLimit
            readIdle = bounds.readIdle
            responseHead = bounds.responseHead
            maxInterimResponses = bounds.maxInterimResponses
        }
    }

    /// How the read timer should be set.
    enum ReadTimer: Equatable {
        case stopped
        /// Fail with `.readTimeout` if no byte arrives within this.
        case idle(Duration)
        /// Fail with `.responseHeadTimeout` if the final head has not arrived within this.
        case headDeadline(Duration)
    }

    /// What to do with a response head.
    enum HeadDisposition: Equatable {
        /// A 1xx: skip it, the final head is still to come.
        case interim
        /// The final head.
        case final
    }

    /// What to do with the rest of the buffer after a message ended.
    enum MessageEnd: Equatable {
        /// An interim response ended: parse on.
        case parseNext
        /// The response is complete: deliver it. With `release`, the request
        /// is out too and the connection goes back to the pool (or closes)
        /// first; without, the send side releases it when it is done.
        case responseComplete(release: Release?)
    }

    /// How an exchange leaves its connection.
    enum Release: Equatable {
        /// Back to the pool; resume reading if a slow consumer had paused it
        /// (an idle connection reads, to see the server close it).
        case reuse(resumeReading: Bool)
        /// Closed: not reusable.
        case close
    }

    /// What to do with an event from the socket.
    enum Inbound: Equatable {
        /// Give it to the parser.
        case parse
        /// Ignore it (the connection is closed, or the response already complete).
        case ignore
    }

    /// What to do about a failure: close the connection and, if an exchange
    /// was running, fail it with `error` (its retry flag set by the rules).
    struct Failure {
        var error: HTTPClientError
        var exchange: ExchangeID?
    }

    /// What the send side should do after the request is out.
    enum AfterSend: Equatable {
        case none
        case setReadTimer(ReadTimer)
        case release(Release)
    }

    /// What to do when the caller's consumer of a streamed body falls behind or catches up.
    enum ReadingChange: Equatable {
        case none
        /// Stop reading from the socket and stop the read timer.
        case pause
        /// Read again, with the read timer set so.
        case resume(ReadTimer)
    }

    private enum Phase {
        /// Waiting for the final head; `interims` 1xx seen so far, `inInterim` inside one now.
        case awaitingHead(interims: Int, inInterim: Bool)
        case body(received: Int)
        case complete
    }

    private enum Sending {
        case inProgress
        /// Out, `whole` or stopped early because the response ended first.
        case done(whole: Bool)
    }

    private struct ExchangeState {
        let id: ExchangeID
        let request: Request
        var phase = Phase.awaitingHead(interims: 0, inInterim: false)
        var sending = Sending.inProgress
        var wroteAnything = false
        var sawResponseBytes = false
        var keepAlive = true
        var readingPaused = false
        /// Waiting for the request body's next chunk from its source (a file, a stream):
        /// the peer is not idle then, this side is.
        var awaitingBodySource = false
        var headDeadline: MonotonicTime?
        var readTimerIsHeadDeadline = false
        /// Request bytes the peer had not acknowledged when last looked at (`requestHandedOver`, a timer firing).
        var unacknowledged: Int?

        var responseComplete: Bool { if case .complete = phase { true } else { false } }
        var headReceived: Bool { if case .awaitingHead = phase { false } else { true } }
    }

    private enum State {
        case idle
        case exchanging(ExchangeState)
        case closed(HTTPClientError)
    }

    private var state = State.idle
    private var lastID: ExchangeID = 0
    /// Exchanges that ended, reusable or not.
    private(set) var completedExchanges = 0

    var isIdle: Bool { if case .idle = state { true } else { false } }

    /// Whether the exchange in progress is inside an interim (1xx) response, whose body and end are not the response's.
    var isInInterimResponse: Bool {
        if case .exchanging(let exchange) = state, case .awaitingHead(_, true) = exchange.phase { return true }
        return false
    }

    /// Whether the request's body should still go out: the exchange is the
    /// current one and its response has not ended (a server may answer early).
    func wantsRequestBody(_ id: ExchangeID) -> Bool {
        guard case .exchanging(let exchange) = state, exchange.id == id else { return false }
        return !exchange.responseComplete
    }

    /// RFC 9112 §6.3 rule 1: a response to HEAD, a 1xx, a 204 and a 304 end
    /// with their head, whatever their framing fields say. (The parser applies
    /// it as it reads the head, where it decides whether to read a body.)
    static func responseEndsWithHead(status: Int, toHEAD: Bool) -> Bool {
        toHEAD || (100..<200).contains(status) || status == 204 || status == 304
    }

    // MARK: The request

    /// A request starts on the idle connection.
    ///
    /// - Returns: the exchange's ID and how to set the read timer until the request is out.
    /// - Throws: the reason the connection closed, if it did.
    mutating func begin(_ request: Request) throws(HTTPClientError) -> (ExchangeID, ReadTimer) {
        switch state {
        case .closed(let reason): throw reason
        case .exchanging: preconditionFailure("one exchange at a time")
        case .idle: break
        }
        lastID += 1
        let exchange = ExchangeState(id: lastID, request: request)
        state = .exchanging(exchange)
        return (lastID, request.readIdle.map(ReadTimer.idle) ?? .stopped)
    }

    /// Some of the request went to the socket (from here on, a non-idempotent request may not be retried).
    mutating func wroteRequestBytes(_ id: ExchangeID) {
        modify(id) { $0.wroteAnything = true }
    }

    /// The request body's source is being asked for its next chunk (`waiting`), or gave
    /// it. While this side waits for its own body (a file read queued behind slow disk
    /// work, a stream of the caller's), the read-idle timer does not run: a silence that
    /// is ours is not the server's. It runs again, from zero, once the chunk is in.
    /// Nil when `id` is not the exchange in progress (leave the timer alone).
    mutating func bodySource(_ id: ExchangeID, waiting: Bool, now: @autoclosure () -> MonotonicTime) -> ReadTimer? {
        guard case .exchanging(var exchange) = state, exchange.id == id else { return nil }
        exchange.awaitingBodySource = waiting
        let timer = Self.readTimer(for: &exchange, now: now())
        state = .exchanging(exchange)
        return timer
    }

    /// The request is out: `whole`, or stopped early because the response ended first.
    /// The response-head deadline runs from here: a long upload's time is not the server's.
    mutating func requestSent(_ id: ExchangeID, whole: Bool, now: MonotonicTime) -> AfterSend {
        guard case .exchanging(var exchange) = state, exchange.id == id else { return .none }
        exchange.sending = .done(whole: whole)
        exchange.wroteAnything = true
        exchange.awaitingBodySource = false
        if exchange.responseComplete {
            return .release(release(exchange))
        }
        var action = AfterSend.none
        if !exchange.headReceived, let headTimeout = exchange.request.responseHead {
            exchange.headDeadline = now + headTimeout
            action = .setReadTimer(Self.readTimer(for: &exchange, now: now))
        }
        state = .exchanging(exchange)
        return action
    }

    /// Sending the request failed. If the response already ended, the exchange
    /// ends (not reusable); else it fails.
    mutating func sendFailed(_ id: ExchangeID, _ error: HTTPClientError) -> (release: Release?, failure: Failure?) {
        guard case .exchanging(var exchange) = state, exchange.id == id else { return (nil, nil) }
        exchange.sending = .done(whole: false)
        if exchange.responseComplete { return (release(exchange), nil) }
        state = .exchanging(exchange)
        return (nil, fail(error))
    }

    // MARK: The response

    /// Bytes arrived from the socket.
    ///
    /// - Returns: whether to parse them; a failure when nobody asked for them (the server is confused).
    mutating func bytesArrived(count: Int) -> (Inbound, Failure?) {
        inbound(ifIdle: HTTPClientError(.malformedResponse, "\(count) unexpected bytes on an idle connection")) { $0.sawResponseBytes = true }
    }

    /// The peer closed its side.
    ///
    /// - Returns: `.parse` when the parser must be told (a close-delimited
    ///   body ends here; then `messageEnded` or `closedMidResponse`); a
    ///   failure when the connection was idle.
    mutating func peerClosed() -> (Inbound, Failure?) {
        inbound(ifIdle: HTTPClientError(.connectionClosed, "closed by the server while idle")) { _ in }
    }

    /// News from the socket: an idle connection fails with `error`; once the
    /// response is complete (the request still going out), anything more
    /// spoils reuse and is ignored; else it is the parser's, after `note`.
    private mutating func inbound(ifIdle error: @autoclosure () -> HTTPClientError,
                                  note: (inout ExchangeState) -> Void) -> (Inbound, Failure?) {
        switch state {
        case .closed:
            return (.ignore, nil)
        case .idle:
            return (.ignore, fail(error()))
        case .exchanging(var exchange):
            if exchange.responseComplete {
                exchange.keepAlive = false
            } else {
                note(&exchange)
            }
            state = .exchanging(exchange)
            return (exchange.responseComplete ? .ignore : .parse, nil)
        }
    }

    /// The peer closed before the response was complete.
    mutating func closedMidResponse() -> Failure? {
        guard case .exchanging(let exchange) = state else { return nil }
        return fail(HTTPClientError(.connectionClosed, exchange.headReceived ? "in the middle of the body" : "before the response head"))
    }

    /// A head was parsed. 101 is refused: this client cannot hand a
    /// connection over, and a 101 leaves it in a protocol it cannot read.
    ///
    /// - Throws: `.malformedResponse` for a status below 100, a 101 or too many 1xx;
    ///   `.bodyTooLarge` when a collected body declares more than the limit.
    mutating func receivedHead(status: Int, keepAlive: Bool, hasNoBody: Bool,
                               contentLength: Int?) throws(HTTPClientError) -> HeadDisposition {
        guard case .exchanging(var exchange) = state, case .awaitingHead(let interims, _) = exchange.phase else {
            throw HTTPClientError(.malformedResponse, "a response head where none was expected")
        }
        // A status is three digits, and below 100 none means anything (RFC 9110 §15); llhttp reads one or two digits too.
        if status < 100 {
            throw HTTPClientError(.malformedResponse, "status \(status) is not a status code")
        }
        if status == 101 {
            throw HTTPClientError(.malformedResponse, "the server switched protocols (101), which an HTTP request here cannot follow")
        }
        if (100..<200).contains(status) {
            let max = exchange.request.maxInterimResponses
            guard interims < max else { throw HTTPClientError(.malformedResponse, "more than \(max) interim (1xx) responses") }
            exchange.phase = .awaitingHead(interims: interims + 1, inInterim: true)
            state = .exchanging(exchange)
            return .interim
        }
        if !hasNoBody, let max = exchange.request.collectLimit, let length = contentLength, length > max {
            throw HTTPClientError(.bodyTooLarge, "Content-Length \(length) is over the limit of \(max) bytes")
        }
        exchange.keepAlive = keepAlive
        exchange.phase = .body(received: 0)
        state = .exchanging(exchange)
        return .final
    }

    /// Body bytes of the final response arrived.
    ///
    /// - Returns: the body bytes received so far.
    /// - Throws: `.bodyTooLarge` when a collected body passes its limit.
    mutating func receivedBody(count: Int) throws(HTTPClientError) -> Int {
        guard case .exchanging(var exchange) = state, case .body(var received) = exchange.phase else { return 0 }
        received += count
        if let max = exchange.request.collectLimit, received > max {
            throw HTTPClientError(.bodyTooLarge, "more than \(max) bytes")
        }
        exchange.phase = .body(received: received)
        state = .exchanging(exchange)
        return received
    }

    /// A message ended. `bytesFollow`: more bytes came after it in the same
    /// read; `byClose`: the peer's close ended it (a close-delimited body);
    /// `parserKeepsConnection` false: the parser reads no further message on
    /// the connection (a `Connection: close` in the trailer section, after a
    /// head that said keep-alive).
    mutating func messageEnded(bytesFollow: Bool, byClose: Bool = false, parserKeepsConnection: Bool = true) -> MessageEnd? {
        guard case .exchanging(var exchange) = state else { return nil }
        switch exchange.phase {
        case .awaitingHead(let interims, true):
            exchange.phase = .awaitingHead(interims: interims, inInterim: false)
            state = .exchanging(exchange)
            return .parseNext
        case .body:
            exchange.phase = .complete
            // Bytes after the response, or a body the close delimited: never reuse.
            if bytesFollow || byClose || !parserKeepsConnection { exchange.keepAlive = false }
            if case .done = exchange.sending { return .responseComplete(release: release(exchange)) }
            state = .exchanging(exchange)
            return .responseComplete(release: nil)
        case .awaitingHead, .complete:
            return nil
        }
    }

    // MARK: Reading and timers

    /// How the read timer should be set now (after a read, say).
    mutating func readTimer(now: @autoclosure () -> MonotonicTime) -> ReadTimer {
        guard case .exchanging(var exchange) = state else { return .stopped }
        let timer = Self.readTimer(for: &exchange, now: now())
        state = .exchanging(exchange)
        return timer
    }

    /// A request with a body is in the kernel's hands with `unacknowledged` bytes of it
    /// not yet acknowledged by the peer: the mark `readTimerFired(unacknowledged:)`
    /// compares with. (Without a body there is no upload to wait for: no mark, no extension.)
    mutating func requestHandedOver(_ id: ExchangeID, unacknowledged: Int) {
        modify(id) { $0.unacknowledged = unacknowledged }
    }

    /// The read-idle timer fired with `unacknowledged` bytes written and not yet
    /// acknowledged by the peer. Fewer than at the last look: the peer is taking the
    /// request (a long upload over a slow link), so the silence is not idleness and the
    /// timer starts again (returned). Otherwise nil: the timer's failure stands
    /// (`readTimerFired()`). So an upload fails once nothing moves either way for one
    /// to two read-idle periods; the response-head deadline is never extended so.
    mutating func readTimerFired(unacknowledged: Int, now: @autoclosure () -> MonotonicTime) -> ReadTimer? {
        guard case .exchanging(var exchange) = state, !exchange.readTimerIsHeadDeadline else { return nil }
        let before = exchange.unacknowledged
        exchange.unacknowledged = unacknowledged
        state = .exchanging(exchange)
        guard let before, unacknowledged < before else { return nil }
        return readTimer(now: now())
    }

    /// The read timer fired.
    mutating func readTimerFired() -> Failure? {
        guard case .exchanging(let exchange) = state else { return nil }
        let bounds = exchange.request
        if exchange.readTimerIsHeadDeadline {
            return fail(HTTPClientError(.responseHeadTimeout, "no response head within \(bounds.responseHead ?? .zero) of sending the request"))
        }
        return fail(HTTPClientError(.readTimeout, "no bytes for \(bounds.readIdle ?? .zero)"))
    }

    /// The request's overall deadline passed.
    mutating func deadlineFired() -> Failure? {
        guard case .exchanging = state else { return nil }
        return fail(HTTPClientError(.deadlineExceeded))
    }

    /// The consumer of a streamed body fell behind (`reading` false) or caught
    /// up. While the client itself is not reading, the read-idle timer does not run.
    mutating func consumerChanged(_ id: ExchangeID, reading: Bool, now: @autoclosure () -> MonotonicTime) -> ReadingChange {
        guard case .exchanging(var exchange) = state, exchange.id == id, !exchange.responseComplete else { return .none }
        exchange.readingPaused = !reading
        let change = reading ? ReadingChange.resume(Self.readTimer(for: &exchange, now: now())) : .pause
        state = .exchanging(exchange)
        return change
    }

    // MARK: Ending early

    /// The caller's task was cancelled.
    mutating func cancelled(_ id: ExchangeID) -> Failure? {
        guard case .exchanging(let exchange) = state, exchange.id == id else { return nil }
        return fail(HTTPClientError(.cancelled))
    }

    /// Every copy of a streamed body was dropped before its end: the connection cannot be reused half-read.
    mutating func bodyAbandoned(_ id: ExchangeID) -> Failure? {
        guard case .exchanging(let exchange) = state, exchange.id == id, !exchange.responseComplete else { return nil }
        return fail(HTTPClientError(.cancelled, "the response body was dropped before its end"))
    }

    /// The socket failed.
    mutating func transportFailed(_ error: HTTPClientError) -> Failure? {
        if case .exchanging(var exchange) = state, exchange.responseComplete {
            exchange.keepAlive = false
            state = .exchanging(exchange)
            return nil
        }
        return fail(error)
    }

    /// Closes the connection, failing the exchange in progress with `error`
    /// (the rules decide whether it may be retried on a new connection).
    ///
    /// - Returns: nil if the connection was closed already.
    mutating func fail(_ error: HTTPClientError) -> Failure? {
        switch state {
        case .closed:
            return nil
        case .idle:
            state = .closed(error)
            return Failure(error: error, exchange: nil)
        case .exchanging(let exchange):
            state = .closed(error)
            var failure = error
            failure.mayRetryOnNewConnection = completedExchanges > 0 && !exchange.headReceived && !exchange.sawResponseBytes
                && (error.kind == .connectionClosed || error.kind == .transport || error.tls?.kind == .truncated)
                && (exchange.request.isIdempotent || !exchange.wroteAnything)
            return Failure(error: failure, exchange: exchange.id)
        }
    }

    // MARK: Helpers

    private mutating func release(_ exchange: ExchangeState) -> Release {
        completedExchanges += 1
        guard exchange.keepAlive, case .done(whole: true) = exchange.sending else {
            state = .closed(HTTPClientError(.connectionClosed, "not reusable"))
            return .close
        }
        state = .idle
        return .reuse(resumeReading: exchange.readingPaused)
    }

    /// One timer serves the read-idle timeout and, until the final head
    /// arrives, the head deadline: it is set for whichever comes first.
    private static func readTimer(for exchange: inout ExchangeState, now: @autoclosure () -> MonotonicTime) -> ReadTimer {
        exchange.readTimerIsHeadDeadline = false
        guard !exchange.responseComplete, !exchange.readingPaused, !exchange.awaitingBodySource else { return .stopped }
        let idle = exchange.request.readIdle
        if !exchange.headReceived, let headDeadline = exchange.headDeadline {
            let left = max(headDeadline - now(), .zero)
            if idle.map({ left <= $0 }) ?? true {
                exchange.readTimerIsHeadDeadline = true
                return .headDeadline(left)
            }
        }
        return idle.map(ReadTimer.idle) ?? .stopped
    }

    private mutating func modify(_ id: ExchangeID, _ change: (inout ExchangeState) -> Void) {
        guard case .exchanging(var exchange) = state, exchange.id == id else { return }
        change(&exchange)
        state = .exchanging(exchange)
    }
}
