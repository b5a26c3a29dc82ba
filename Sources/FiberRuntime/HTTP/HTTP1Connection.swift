/// One HTTP/1.1 connection: a socket stream, an llhttp parser reading in place
/// from the loop's read buffer, and at most one exchange at a time (no
/// pipelining). An actor pinned to its loop.
///
/// The rules (which heads are final, when a body is too large, reuse, retry
/// on a new connection, the read timer) live in `HTTP1ConnectionStateMachine`;
/// this actor feeds it what the socket, the parser, the timers and the caller
/// do, and performs what it answers: writing, reading, delivering, closing and
/// reporting to the pool. The pool hears of an exchange's end *before* the
/// caller resumes, so that the caller's next request finds the connection idle.
actor HTTP1Connection: LoopIsolated {
    nonisolated let id: Int
    nonisolated let loop: EventLoop
    nonisolated let createdAt: ContinuousClock.Instant
    /// Connect-phase timings of the first exchange.
    nonisolated let setupTiming: RequestTiming

    private let stream: SocketStream
    private let parser: HTTP1Parser
    private var rules = HTTP1ConnectionStateMachine()
    private var exchange: HTTP1Exchange?
    private var readTimer: LoopTimer?
    private var deadlineTimer: LoopTimer?
    /// Told, on the loop, when an exchange ends (reusable or not) or the idle connection closed.
    private let report: (HTTP1Connection, _ reusable: Bool) -> Void

    nonisolated var unownedExecutor: UnownedSerialExecutor { loop.executor }

    /// Exchanges that ended on this connection, reusable or not.
    var completedExchanges: Int { rules.completedExchanges }

    /// What the caller gets back: the head at once in streaming mode, head and body in collecting mode.
    struct Response: Sendable {
        var head: HTTP1Head
        var body: CollectedBody
        var stream: HTTPResponseBody?
        var timing: RequestTiming
        var version: HTTPVersion = .http1_1
        /// The trailer fields that followed the body, for a collected response (`TrailerFields.kept`).
        var trailers: HTTPHeaders? = nil
    }

    enum BodyMode {
        /// The body is collected into memory, at most `maxBytes` read from the
        /// wire; a body in a content coding the client reads is inflated as it
        /// arrives, within `inflating`'s limits (nil: left as it came), in the `form` the caller hands on.
        case collect(maxBytes: Int, inflating: Inflater.Limits?, form: CollectedBody.Form)
        case stream(lowWatermark: Int, highWatermark: Int)
    }

    /// Call on the loop thread, with a stream of the same loop.
    init(id: Int, stream: SocketStream, maxHeaderBytes: Int, setupTiming: RequestTiming,
         report: @escaping (HTTP1Connection, Bool) -> Void) {
        self.id = id
        self.loop = stream.loop
        self.stream = stream
        self.parser = HTTP1Parser(mode: .response, maxHeaderBytes: maxHeaderBytes)
        self.createdAt = .now
        self.setupTiming = setupTiming
        self.report = report
        stream.assumeIsolated { stream in
            stream.setInPlaceReader { [weak self] event in
                // On the loop, synchronously: the bytes are only valid during this call.
                self?.onLoop(event) { me, event in me.didRead(event) }
            }
        }
    }

    /// Starts an exchange: arms its timers and, for a body in memory (or
    /// none), writes the request at once, in one vectored write. Await its
    /// end with `response(to:on:)`; a streamed or file body is sent by `upload`.
    ///
    /// Synchronous, so that the HTTP client can lease a connection and start
    /// an exchange on it from the pool without a hop to this actor.
    ///
    /// - Throws: `HTTPClientError` if the connection is already closed.
    func begin(_ request: PreparedRequest, mode: BodyMode, bounds: ExchangeBounds,
               start: ContinuousClock.Instant, timing: RequestTiming) throws(HTTPClientError) -> HTTP1Exchange {
        let collectLimit: Int? = if case .collect(let max, _, _) = mode { max } else { nil }
        let (id, timer) = try rules.begin(.init(isIdempotent: request.isIdempotent,
                                                collectLimit: collectLimit, bounds: bounds))
        let exchange = HTTP1Exchange(id: id, request: request, mode: mode, start: start, timing: timing)
        exchange.timing.reusedConnection = rules.completedExchanges > 0
        self.exchange = exchange
        parser.expectsNoBody = request.method == "HEAD"
        if case .stream(let low, let high) = mode {
            // Weak: the exchange holds the buffer, which holds this closure.
            exchange.bodyBuffer = ResponseBodyBuffer(loop: loop, lowWatermark: low, highWatermark: high) { [weak self] reading in
                self?.assumeIsolated { me in
                    me.perform(me.rules.consumerChanged(id, reading: reading, now: .now()))
                }
            }
        }
        if let deadline = bounds.deadline { armDeadline(deadline) }
        setReadTimer(timer)
        switch request.body {
        case nil: sendNow(CollectionOfOne(request.head.bytes()), request, in: exchange)
        case .bytes(let bytes)?: sendNow([request.head.bytes(), bytes], request, in: exchange)
        case .data(let data)?:
            // Head and body in one vectored write, read in place: what the kernel does not take is copied then.
            request.head.bytes().withUnsafeBytes { head in data.withUnsafeBytes { body in sendNow([head, body], request, in: exchange) } }
        case .streamed?: break
        }
        return exchange
    }

    /// Sends the streamed or file body of `exchange` (started by `begin`)
    /// beside reading its response, and returns the response.
    ///
    /// - Throws: `HTTPClientError` (`.malformedResponse`, `.headersTooLarge`,
    ///   `.bodyTooLarge`, `.connectionClosed`, `.readTimeout`, `.transport`, `.cancelled`).
    func upload(_ request: PreparedRequest, for exchange: HTTP1Exchange) async throws -> Response {
        try await withTaskCancellationHandler {
            // Uploading goes on beside reading: a server may answer (and end the exchange) early.
            async let sending: Void = sendStreamed(request, in: exchange)
            let response = try await exchange.response.wait()
            if response.stream == nil { await sending }
            return response
        } onCancel: { [weak self] in
            self?.cancel(exchange)
        }
    }

    /// Waits, in the caller's isolation, for the end of `exchange` (its head,
    /// when streaming) on `connection`; cancelling the caller's task fails the
    /// exchange and closes the connection.
    ///
    /// - Throws: as `upload`.
    static func response(to exchange: HTTP1Exchange, on connection: HTTP1Connection,
                         isolation: isolated (any Actor)? = #isolation) async throws -> Response {
        try await withTaskCancellationHandler {
            try await exchange.response.wait()
        } onCancel: { [weak connection] in
            connection?.cancel(exchange)
        }
    }

    /// Closes the connection; an exchange in progress fails with `reason`.
    func close(_ reason: HTTPClientError = HTTPClientError(.shutdown)) {
        perform(rules.fail(reason))
    }

    private nonisolated func cancel(_ exchange: HTTP1Exchange) {
        try? loop.execute {
            self.onLoop(exchange.id) { me, id in me.perform(me.rules.cancelled(id)) }
        }
    }

    // MARK: Sending

    /// Writes a request that is all in memory: what the kernel does not take
    /// at once is queued, and the exchange learns when it is out.
    private func sendNow<C: Collection>(_ buffers: C, _ request: PreparedRequest, in exchange: HTTP1Exchange)
        where C.Element: WritableBytes {
        do {
            let pending = try stream.onLoop(buffers) { stream, buffers in try stream.startWrite(buffers) }
            rules.wroteRequestBytes(exchange.id)
            if request.body != nil {
                rules.requestHandedOver(exchange.id, unacknowledged: stream.onLoop(()) { stream, _ in stream.unacknowledgedBytes })
            }
            guard let pending else {
                sent(request, in: exchange, whole: true)
                return
            }
            Task(executorPreference: loop) {
                do {
                    try await pending.wait()
                    await self.sent(request, in: exchange, whole: true)
                } catch {
                    await self.sendFailed(error, request, in: exchange)
                }
            }
        } catch {
            sendFailed(error, request, in: exchange)
        }
    }

    /// Sends a streamed or file body after the head.
    private func sendStreamed(_ request: PreparedRequest, in exchange: HTTP1Exchange) async {
        do {
            try await write(CollectionOfOne(request.head.bytes()))
            rules.wroteRequestBytes(exchange.id)
            let whole: Bool
            switch request.body {
            case .streamed(let chunks, let length)?:
                whole = try await sendChunks(chunks, chunked: length == nil, total: length, request: request, exchange: exchange)
            case nil, .bytes?, .data?:
                preconditionFailure("a body in memory is sent by sendNow")
            }
            sent(request, in: exchange, whole: whole)
        } catch {
            sendFailed(error, request, in: exchange)
        }
    }

    /// The request is out (`whole`), or sending stopped because the response ended first.
    private func sent(_ request: PreparedRequest, in exchange: HTTP1Exchange, whole: Bool) {
        let now = MonotonicTime.now()
        if exchange.timing.requestWritten == .zero { exchange.timing.requestWritten = now.instant - exchange.start }
        if let length = request.body?.lengthInMemory { request.uploadProgress?(length, length) }
        if request.body != nil {
            rules.requestHandedOver(exchange.id, unacknowledged: stream.onLoop(()) { stream, _ in stream.unacknowledgedBytes })
        }
        switch rules.requestSent(exchange.id, whole: whole, now: now) {
        case .none: break
        case .setReadTimer(let timer): setReadTimer(timer)
        case .release(let release): perform(release)
        }
    }

    private func sendFailed(_ error: any Error, _ request: PreparedRequest, in exchange: HTTP1Exchange) {
        let error = error as? HTTPClientError ?? HTTPClientError.wrapping(error, url: request.url)
        let (release, failure) = rules.sendFailed(exchange.id, error)
        if let release { perform(release) }
        perform(failure)
    }

    /// Writes on the stream (same loop) without a hop to it; suspends only
    /// while the kernel has not taken everything.
    private func write<C: Collection<[UInt8]>>(_ buffers: C) async throws {
        let pending = try stream.onLoop(buffers) { stream, buffers in try stream.startWrite(buffers) }
        if let pending { try await stream.waitForWrite(pending) }
    }

    /// Sends the body; returns false if the response ended first and sending stopped.
    private func sendChunks<S: AsyncSequence>(_ chunks: S, chunked: Bool, total: Int?, request: PreparedRequest,
                                              exchange: HTTP1Exchange) async throws -> Bool where S.Element == [UInt8] {
        var sent = 0
        var source = chunks.makeAsyncIterator()
        while true {
            // The read-idle timer waits while the body's own source does (see `bodySource`).
            if let timer = rules.bodySource(exchange.id, waiting: true, now: .now()) { setReadTimer(timer) }
            let next = try await source.next(isolation: #isolation)
            if let timer = rules.bodySource(exchange.id, waiting: false, now: .now()) { setReadTimer(timer) }
            guard let chunk = next else { break }
            guard rules.wantsRequestBody(exchange.id) else { return false }
            guard !chunk.isEmpty else { continue }
            // Checked before writing: bytes past the declared length would be read by the server as a next request.
            if let total, sent + chunk.count > total {
                throw HTTPClientError(.requestBody, "the body stream yielded more than its declared \(total) bytes")
            }
            if chunked {
                try await stream.write(contentsOf: HTTP1RequestSerializer.chunk(chunk))
            } else {
                try await stream.write(chunk)
            }
            sent += chunk.count
            request.uploadProgress?(sent, total)
        }
        if chunked {
            try await stream.write(HTTP1RequestSerializer.lastChunk)
        } else if let total, sent != total {
            throw HTTPClientError(.requestBody, "the body stream yielded \(sent) bytes, not its declared \(total)")
        }
        return true
    }

    // MARK: Receiving

    private func didRead(_ event: SocketStream.InPlaceRead) {
        switch event {
        case .bytes(let bytes):
            let (inbound, failure) = rules.bytesArrived(count: bytes.count)
            perform(failure)
            guard inbound == .parse, let exchange else { return }
            receive(bytes, in: exchange)
            // After the bytes are read: a response they completed needs no timer, and a head they brought ends the head deadline.
            setReadTimer(rules.readTimer(now: .now()))
        case .end:
            let (inbound, failure) = rules.peerClosed()
            perform(failure)
            guard inbound == .parse, let exchange else { return }
            do {
                let ended = try parser.finish { try handle($0, bytes: UnsafeRawBufferPointer(start: nil, count: 0), in: exchange) }
                if ended {
                    messageEnded(bytesFollow: false, byClose: true, in: exchange)
                } else {
                    perform(rules.closedMidResponse())
                }
            } catch {
                perform(rules.fail(error as? HTTPClientError ?? HTTPClientError(.connectionClosed)))
            }
        case .failure(let error):
            let kind: HTTPClientError.Kind = error.kind == .closed ? .connectionClosed : error.kind == .tls ? .tls : .transport
            perform(rules.transportFailed(HTTPClientError(kind, transport: error)))
        }
    }

    private func receive(_ bytes: UnsafeRawBufferPointer, in exchange: HTTP1Exchange) {
        if exchange.timing.firstByte == .zero { exchange.timing.firstByte = .now - exchange.start }
        let stop: HTTP1Parser.ResponsesStop
        do {
            stop = try parser.feedResponses(bytes, while: { self.exchange === exchange },
                                            handle: { try handle($0, bytes: $1, in: exchange) },
                                            messageEnded: { messageEnded(bytesFollow: $0, byClose: false, in: exchange) })
        } catch {
            perform(rules.fail(error as? HTTPClientError ?? HTTPClientError(.malformedResponse, "\(error)")))
            return
        }
        if stop == .upgraded {
            // llhttp stops at a 101 only after its head, which `receivedHead` refused already.
            perform(rules.fail(HTTPClientError(.malformedResponse, "the server switched protocols (101), which an HTTP request here cannot follow")))
        }
    }

    private func handle(_ event: HTTP1Parser.Event, bytes: UnsafeRawBufferPointer, in exchange: HTTP1Exchange) throws {
        switch event {
        case .head(let head):
            let disposition = try rules.receivedHead(status: head.status, keepAlive: head.keepAlive, hasNoBody: head.hasNoBody,
                                                     contentLength: head.contentLength)
            guard disposition == .final else { return }
            exchange.head = head
            if !head.hasNoBody {
                exchange.expectedLength = head.contentLength
                // A redirect's body is left as it came: the client inflates it only if it does not follow it.
                if case .collect(_, let limits?, _) = exchange.mode, RedirectPolicy.location(of: head) == nil,
                   let coding = Inflater.coding(of: head.headers) {
                    exchange.inflater = try Inflater(encoding: coding, limits: limits)
                } else if case .collect = exchange.mode, let length = head.contentLength {
                    // Once, for the declared length (the rules checked it against the limit): growing
                    // by doubling would copy a large body about twice over. Pages are touched only as bytes come.
                    exchange.body.reserveCapacity(length)
                }
            }
            if let buffer = exchange.bodyBuffer {
                let id = exchange.id
                let lifetime = HTTPResponseBody.Lifetime { [weak self, loop] in
                    guard let self else { return }
                    try? loop.execute { self.assumeIsolated { $0.perform($0.rules.bodyAbandoned(id)) } }
                }
                exchange.response.resume(with: .success(Response(head: head, body: .bytes([]), stream: HTTPResponseBody(buffer: buffer, lifetime: lifetime),
                                                                 timing: exchange.timing)))
            }
        case .body(let range):
            guard !rules.isInInterimResponse else { return }
            let part = UnsafeRawBufferPointer(rebasing: bytes[range])
            let received = try rules.receivedBody(count: part.count)
            if let buffer = exchange.bodyBuffer {
                nonisolated(unsafe) let part = part
                buffer.assumeIsolated { $0.push(part) }
            } else if let inflater = exchange.inflater {
                try inflater.inflate(part, into: &exchange.body)
            } else {
                exchange.body.append(part)
            }
            exchange.request.downloadProgress?(received, exchange.expectedLength)
        case .end(let trailers):
            guard !rules.isInInterimResponse else { return }
            try exchange.inflater?.finish()
            exchange.trailers = TrailerFields.kept(trailers)
        }
    }

    /// A message ended; returns whether to parse on (an interim response ended).
    @discardableResult
    private func messageEnded(bytesFollow: Bool, byClose: Bool, in exchange: HTTP1Exchange) -> Bool {
        switch rules.messageEnded(bytesFollow: bytesFollow, byClose: byClose, parserKeepsConnection: parser.keepsConnection) {
        case .parseNext?:
            return true
        case .responseComplete(let release)?:
            readTimer?.stop()
            deadlineTimer?.stop()
            exchange.timing.total = .now - exchange.start
            // Back in the pool before the caller resumes, so that its next request finds the connection idle.
            if let release { perform(release) }
            if let buffer = exchange.bodyBuffer {
                let trailers = exchange.trailers
                buffer.assumeIsolated { $0.finish(nil, trailers: trailers) }
            } else if let head = exchange.head {
                exchange.response.resume(with: .success(Response(head: head, body: exchange.body, stream: nil, timing: exchange.timing,
                                                                 trailers: exchange.trailers)))
            }
            return false
        case nil:
            return false
        }
    }

    // MARK: Performing the rules' answers

    /// The exchange is over: reuse or close the connection, and tell the pool.
    private func perform(_ release: HTTP1ConnectionStateMachine.Release) {
        exchange = nil
        switch release {
        case .reuse(let resumeReading):
            if resumeReading { stream.assumeIsolated { $0.resumeReading() } }
            report(self, true)
        case .close:
            shut()
            report(self, false)
        }
    }

    /// Closes the connection, fails the exchange the failure names, and tells the pool.
    private func perform(_ failure: HTTP1ConnectionStateMachine.Failure?) {
        guard let failure else { return }
        let failed = exchange
        // Detached before closing: closing the stream reports back into `didRead`.
        exchange = nil
        shut()
        if let failed, failed.id == failure.exchange {
            var error = failure.error
            if error.url == nil {
                error = error.at(failed.request.url)
                error.mayRetryOnNewConnection = failure.error.mayRetryOnNewConnection
            }
            failed.response.resume(with: .failure(error))
            failed.bodyBuffer?.assumeIsolated { $0.finish(error) }
        }
        report(self, false)
    }

    private func perform(_ change: HTTP1ConnectionStateMachine.ReadingChange) {
        switch change {
        case .none:
            break
        case .pause:
            stream.assumeIsolated { $0.pauseReading() }
            readTimer?.stop()
        case .resume(let timer):
            stream.assumeIsolated { $0.resumeReading() }
            setReadTimer(timer)
        }
    }

    private func shut() {
        readTimer?.close()
        readTimer = nil
        deadlineTimer?.close()
        deadlineTimer = nil
        stream.assumeIsolated { $0.close() }
    }

    private func armDeadline(_ deadline: ContinuousClock.Instant) {
        if deadlineTimer == nil { deadlineTimer = try? LoopTimer(on: loop) }
        deadlineTimer?.start(after: deadline - .now) { [weak self] in
            self?.assumeIsolated { $0.perform($0.rules.deadlineFired()) }
        }
    }

    private func setReadTimer(_ timer: HTTP1ConnectionStateMachine.ReadTimer) {
        let due: Duration
        switch timer {
        case .stopped:
            readTimer?.stop()
            return
        case .idle(let duration), .headDeadline(let duration):
            due = duration
        }
        if readTimer == nil {
            readTimer = try? LoopTimer(on: loop)
            readTimer?.setAction { [weak self] in
                self?.assumeIsolated { me in
                    // An upload the peer is still taking is not an idle connection.
                    let unacknowledged = me.stream.onLoop(()) { stream, _ in stream.unacknowledgedBytes }
                    if let timer = me.rules.readTimerFired(unacknowledged: unacknowledged, now: .now()) {
                        me.setReadTimer(timer)
                    } else {
                        me.perform(me.rules.readTimerFired())
                    }
                }
            }
        }
        readTimer?.restart(after: due)
    }
}

/// One request and its response on an HTTP/1.1 connection: what the caller
/// awaits and what the connection gathers for it (the head, the body or its
/// buffer, the timings). The rules' side of it is in the state machine.
final class HTTP1Exchange: @unchecked Sendable {
    // @unchecked: only its connection touches it, on the connection's loop
    // (the sending child task runs isolated to that same connection).
    let id: HTTP1ConnectionStateMachine.ExchangeID
    let request: PreparedRequest
    let mode: HTTP1Connection.BodyMode
    let start: ContinuousClock.Instant
    let response = OnceContinuation<HTTP1Connection.Response>()
    var timing: RequestTiming
    var head: HTTP1Head?
    var body: CollectedBody
    var bodyBuffer: ResponseBodyBuffer?
    var expectedLength: Int?
    /// Inflates a collected body as it arrives.
    var inflater: Inflater?
    /// The trailer fields kept from the end of the body.
    var trailers: HTTPHeaders?

    init(id: HTTP1ConnectionStateMachine.ExchangeID, request: PreparedRequest, mode: HTTP1Connection.BodyMode,
         start: ContinuousClock.Instant, timing: RequestTiming) {
        self.id = id
        self.request = request
        self.mode = mode
        self.start = start
        self.timing = timing
        self.body = if case .collect(_, _, let form) = mode { CollectedBody(form) } else { .bytes([]) }
    }
}
