/// One HTTP/1.1 connection: a socket stream, an llhttp parser reading in place
/// from the loop's read buffer, and at most one exchange at a time (no
/// pipelining). An actor pinned to its loop.
///
/// Lifecycle: `idle` ⇄ `busy` (one exchange) → `closed`. An exchange ends
/// when the response ends; the connection then reports to its pool *before*
/// the caller resumes — reusable only if the response was read to its end,
/// the request was sent whole, no stray bytes followed, and neither side said
/// `Connection: close`. A parse error, a transport failure, a read timeout or
/// a cancelled caller closes it. Closed by the peer while idle, it reports at
/// once, so the pool never leases a connection it knows is dead.
actor HTTP1Connection: LoopIsolated {
    nonisolated let id: Int
    nonisolated let loop: EventLoop
    nonisolated let createdAt: ContinuousClock.Instant
    /// Connect-phase timings of the first exchange.
    nonisolated let setupTiming: RequestTiming

    private let stream: SocketStream
    private let parser: HTTP1Parser
    private var exchange: Exchange?
    private var closedReason: HTTPClientError?
    private var readTimer: LoopTimer?
    private var deadlineTimer: LoopTimer?
    private(set) var completedExchanges = 0
    /// Told, on the loop, when an exchange ends (reusable or not) or the idle connection closed.
    private let report: (HTTP1Connection, _ reusable: Bool) -> Void

    nonisolated var unownedExecutor: UnownedSerialExecutor { loop.executor }

    /// What the caller gets back: the head at once in streaming mode, head and body in collecting mode.
    struct Response: Sendable {
        var head: HTTP1Head
        var body: [UInt8]
        var stream: HTTPResponseBody?
        var timing: RequestTiming
    }

    enum BodyMode {
        /// The body is collected into memory, at most `maxBytes` read from the
        /// wire; a body in a content coding the client reads is inflated as it
        /// arrives, within `inflating`'s limits (nil: left as it came).
        case collect(maxBytes: Int, inflating: Inflater.Limits?)
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
               start: ContinuousClock.Instant, timing: RequestTiming) throws(HTTPClientError) -> Exchange {
        if let closedReason { throw closedReason }
        precondition(exchange == nil, "one exchange at a time")
        let exchange = Exchange(request: request, mode: mode, bounds: bounds, start: start, timing: timing)
        exchange.timing.reusedConnection = completedExchanges > 0
        self.exchange = exchange
        parser.expectsNoBody = request.method == "HEAD"
        if case .stream(let low, let high) = mode {
            // Weak: the exchange holds the buffer, which holds this closure.
            exchange.bodyBuffer = ResponseBodyBuffer(loop: loop, lowWatermark: low, highWatermark: high) { [weak self, weak exchange] reading in
                guard let exchange else { return }
                self?.assumeIsolated { $0.setReading(reading, for: exchange) }
            }
        }
        if let deadline = bounds.deadline { armDeadline(deadline) }
        switch request.body {
        case nil: sendNow(CollectionOfOne(request.head), request, in: exchange)
        case .bytes(let bytes)?: sendNow([request.head, bytes], request, in: exchange)
        case .stream?, .file?: break
        }
        // A request sent at once has set the timer for its head already.
        if exchange.headDeadline == nil { restartReadTimer(for: exchange) }
        return exchange
    }

    /// Sends the streamed or file body of `exchange` (started by `begin`)
    /// beside reading its response, and returns the response.
    ///
    /// - Throws: `HTTPClientError` (`.malformedResponse`, `.headersTooLarge`,
    ///   `.bodyTooLarge`, `.connectionClosed`, `.readTimeout`, `.transport`, `.cancelled`).
    func upload(_ request: PreparedRequest, for exchange: Exchange) async throws -> Response {
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
    static func response(to exchange: Exchange, on connection: HTTP1Connection,
                         isolation: isolated (any Actor)? = #isolation) async throws -> Response {
        try await withTaskCancellationHandler {
            try await exchange.response.wait()
        } onCancel: { [weak connection] in
            connection?.cancel(exchange)
        }
    }

    /// Closes the connection; an exchange in progress fails with `reason`.
    func close(_ reason: HTTPClientError = HTTPClientError(.shutdown)) {
        fail(reason)
    }

    private nonisolated func cancel(_ exchange: Exchange) {
        try? loop.execute {
            self.onLoop(exchange) { me, exchange in
                if me.exchange === exchange { me.fail(HTTPClientError(.cancelled)) }
            }
        }
    }

    // MARK: Sending

    /// Writes a request that is all in memory: what the kernel does not take
    /// at once is queued, and the exchange learns when it is out.
    private func sendNow<C: Collection<[UInt8]>>(_ buffers: C, _ request: PreparedRequest, in exchange: Exchange) {
        do {
            let pending = try stream.onLoop(buffers) { stream, buffers in try stream.startWrite(buffers) }
            exchange.wroteAnything = true
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
    private func sendStreamed(_ request: PreparedRequest, in exchange: Exchange) async {
        do {
            try await write(CollectionOfOne(request.head))
            exchange.wroteAnything = true
            let whole: Bool
            switch request.body {
            case .stream(let length, let makeChunks)?:
                whole = try await sendChunks(makeChunks(), chunked: length == nil, total: length, request: request, exchange: exchange)
            case .file(let file)?:
                whole = try await sendChunks(file.chunks(on: loop), chunked: false, total: file.size, request: request, exchange: exchange)
            case nil, .bytes?:
                preconditionFailure("a body in memory is sent by sendNow")
            }
            sent(request, in: exchange, whole: whole)
        } catch {
            sendFailed(error, request, in: exchange)
        }
    }

    /// The request is out (`whole`), or sending stopped because the response ended first.
    private func sent(_ request: PreparedRequest, in exchange: Exchange, whole: Bool) {
        // Sent whole even if the answer came first (it may, while the last read of a file finds its end).
        exchange.requestSent = whole
        exchange.wroteAnything = true
        let now = ContinuousClock.now
        if exchange.timing.requestWritten == .zero { exchange.timing.requestWritten = now - exchange.start }
        // The head deadline runs from here: a large upload's time is not the server's.
        if exchange.head == nil, let headTimeout = exchange.bounds.responseHead {
            exchange.headDeadline = now + headTimeout
            restartReadTimer(for: exchange, now: now)
        }
        if case .bytes(let bytes)? = request.body { request.uploadProgress?(bytes.count, bytes.count) }
        exchange.sendDone = true
        if self.exchange === exchange, exchange.responseDone { finish(exchange) }
    }

    private func sendFailed(_ error: any Error, _ request: PreparedRequest, in exchange: Exchange) {
        exchange.sendDone = true
        // A response may already have ended (a server may answer before reading the body).
        if self.exchange === exchange, !exchange.responseDone {
            fail(error as? HTTPClientError ?? HTTPClientError.wrapping(error, url: request.url))
            return
        }
        if self.exchange === exchange, exchange.responseDone { finish(exchange) }
    }

    /// Writes on the stream (same loop) without a hop to it; suspends only
    /// while the kernel has not taken everything.
    private func write<C: Collection<[UInt8]>>(_ buffers: C) async throws {
        let pending = try stream.onLoop(buffers) { stream, buffers in try stream.startWrite(buffers) }
        if let pending { try await stream.waitForWrite(pending) }
    }

    /// Sends the body; returns false if the response ended first and sending stopped.
    private func sendChunks<S: AsyncSequence>(_ chunks: S, chunked: Bool, total: Int?, request: PreparedRequest,
                                              exchange: Exchange) async throws -> Bool where S.Element == [UInt8] {
        var sent = 0
        for try await chunk in chunks {
            guard self.exchange === exchange, !exchange.responseDone else { return false }
            guard !chunk.isEmpty else { continue }
            // Checked before writing: bytes past the declared length would be read by the server as a next request.
            if let total, sent + chunk.count > total {
                throw HTTPClientError(.unsupported, "the body stream yielded more than its declared \(total) bytes")
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
            throw HTTPClientError(.unsupported, "the body stream yielded \(sent) bytes, not its declared \(total)")
        }
        return true
    }

    // MARK: Receiving

    private func didRead(_ event: SocketStream.InPlaceRead) {
        guard closedReason == nil else { return }  // our own close, reported back
        if let exchange, exchange.responseDone {
            // The answer is complete and the request still going out: anything more spoils reuse.
            exchange.keepAlive = false
            return
        }
        switch event {
        case .bytes(let bytes):
            guard let exchange else {
                // Bytes nobody asked for: the server is confused; never reuse this connection.
                fail(HTTPClientError(.malformedResponse, "\(bytes.count) unexpected bytes on an idle connection"))
                return
            }
            receive(bytes, in: exchange)
            // After the bytes are read: a response they completed needs no timer, and a head they brought ends the head deadline.
            restartReadTimer(for: exchange)
        case .end:
            guard let exchange else {
                fail(HTTPClientError(.connectionClosed, "closed by the server while idle"))
                return
            }
            do {
                let ended = try parser.finish { try handle($0, bytes: UnsafeRawBufferPointer(start: nil, count: 0), in: exchange) }
                if ended {
                    exchange.keepAlive = false
                    complete(exchange)
                } else {
                    fail(HTTPClientError(.connectionClosed, exchange.head == nil ? "before the response head" : "in the middle of the body"))
                }
            } catch {
                fail(error as? HTTPClientError ?? HTTPClientError(.connectionClosed))
            }
        case .failure(let error):
            let kind: HTTPClientError.Kind = error.kind == .closed ? .connectionClosed : error.kind == .tls ? .tls : .transport
            fail(HTTPClientError(kind, transport: error))
        }
    }

    private func receive(_ bytes: UnsafeRawBufferPointer, in exchange: Exchange) {
        if exchange.timing.firstByte == .zero { exchange.timing.firstByte = .now - exchange.start }
        var rest = bytes
        while !rest.isEmpty, self.exchange === exchange {
            let outcome: HTTP1Parser.Outcome
            do {
                let buffer = rest
                outcome = try parser.feed(buffer) { try handle($0, bytes: buffer, in: exchange) }
            } catch {
                fail(error as? HTTPClientError ?? HTTPClientError(.malformedResponse, "\(error)"))
                return
            }
            switch outcome {
            case .needMore:
                return
            case .messageEnded(let consumed):
                rest = UnsafeRawBufferPointer(rebasing: rest[consumed...])
                if exchange.interim {
                    exchange.interim = false
                    continue
                }
                if !rest.isEmpty { exchange.keepAlive = false }  // bytes after the response: never reuse
                complete(exchange)
                return
            case .upgraded:
                fail(HTTPClientError(.malformedResponse, "the server switched protocols (101), which an HTTP request here cannot follow"))
                return
            }
        }
    }

    private func handle(_ event: HTTP1Parser.Event, bytes: UnsafeRawBufferPointer, in exchange: Exchange) throws {
        switch event {
        case .head(let head):
            if head.status == 101 {
                // This client cannot hand a connection over: a 101 leaves it in a protocol it cannot read.
                throw HTTPClientError(.malformedResponse, "the server switched protocols (101), which an HTTP request here cannot follow")
            }
            if (100..<200).contains(head.status) {
                exchange.interimResponses += 1
                if exchange.interimResponses > exchange.bounds.maxInterimResponses {
                    throw HTTPClientError(.malformedResponse, "more than \(exchange.bounds.maxInterimResponses) interim (1xx) responses")
                }
                exchange.interim = true
                return
            }
            exchange.head = head
            exchange.keepAlive = head.keepAlive
            if !head.hasNoBody {
                exchange.expectedLength = head.contentLength
                if case .collect(let max, let limits) = exchange.mode {
                    if let length = head.contentLength, length > max {
                        throw HTTPClientError(.bodyTooLarge, "Content-Length \(length) is over the limit of \(max) bytes")
                    }
                    // A redirect's body is left as it came: the client inflates it only if it does not follow it.
                    if let limits, RedirectPolicy.location(of: head) == nil, let coding = Inflater.coding(of: head.headers) {
                        exchange.inflater = try Inflater(encoding: coding, limits: limits)
                    }
                }
            }
            if let buffer = exchange.bodyBuffer {
                let lifetime = HTTPResponseBody.Lifetime { [weak self, loop] in
                    guard let self else { return }
                    try? loop.execute { self.assumeIsolated { $0.abandon(exchange) } }
                }
                exchange.response.resume(with: .success(Response(head: head, body: [], stream: HTTPResponseBody(buffer: buffer, lifetime: lifetime),
                                                                 timing: exchange.timing)))
            }
        case .body(let range):
            guard !exchange.interim else { return }
            let part = UnsafeRawBufferPointer(rebasing: bytes[range])
            exchange.received += part.count
            switch exchange.mode {
            case .collect(let max, _):
                if exchange.received > max { throw HTTPClientError(.bodyTooLarge, "more than \(max) bytes") }
                if let inflater = exchange.inflater {
                    try inflater.inflate(part, into: &exchange.body)
                } else {
                    exchange.body.append(contentsOf: part)
                }
            case .stream:
                nonisolated(unsafe) let part = part
                exchange.bodyBuffer?.assumeIsolated { $0.push(part) }
            }
            exchange.request.downloadProgress?(exchange.received, exchange.expectedLength)
        case .end:
            if !exchange.interim { try exchange.inflater?.finish() }
        }
    }

    // MARK: Ending

    /// The response ended. The exchange ends with it if the request is sent
    /// too; else the send side ends it (`finish`) when it is done.
    private func complete(_ exchange: Exchange) {
        guard self.exchange === exchange, let head = exchange.head, !exchange.responseDone else { return }
        exchange.responseDone = true
        readTimer?.stop()
        deadlineTimer?.stop()
        exchange.timing.total = .now - exchange.start
        // Back in the pool before the caller resumes, so that its next request finds the connection idle.
        if exchange.sendDone { finish(exchange) }
        if let buffer = exchange.bodyBuffer {
            buffer.assumeIsolated { $0.finish(nil) }
        } else {
            exchange.response.resume(with: .success(Response(head: head, body: exchange.body, stream: nil, timing: exchange.timing)))
        }
    }

    /// Every copy of a streamed body was dropped before its end: the connection cannot be reused half-read.
    private func abandon(_ exchange: Exchange) {
        guard self.exchange === exchange, !exchange.responseDone else { return }
        fail(HTTPClientError(.cancelled, "the response body was dropped before its end"))
    }

    /// A streamed body's consumer fell behind (false) or caught up (true).
    /// While the client itself is not reading, the read-idle timer does not run.
    private func setReading(_ reading: Bool, for exchange: Exchange) {
        guard self.exchange === exchange, !exchange.responseDone else { return }
        exchange.readingPaused = !reading
        if reading {
            stream.assumeIsolated { $0.resumeReading() }
            restartReadTimer(for: exchange)
        } else {
            stream.assumeIsolated { $0.pauseReading() }
            readTimer?.stop()
        }
    }

    /// Both halves are done: decide about reuse and tell the pool.
    private func finish(_ exchange: Exchange) {
        guard self.exchange === exchange else { return }
        self.exchange = nil
        // A body consumer may have paused reading; an idle connection reads (to see the server close it).
        if exchange.readingPaused { stream.assumeIsolated { $0.resumeReading() } }
        completedExchanges += 1
        let reusable = exchange.keepAlive && exchange.requestSent && closedReason == nil
        if !reusable { shut(HTTPClientError(.connectionClosed, "not reusable")) }
        report(self, reusable)
    }

    private func fail(_ error: HTTPClientError) {
        let failed = exchange
        guard closedReason == nil || failed != nil else { return }
        // Detached before closing: closing the stream reports back into `didRead`.
        exchange = nil
        shut(error)
        if let exchange = failed {
            var failure = error.url == nil ? error.at(exchange.request.url) : error
            // A connection the server dropped while it sat idle, found out only now.
            failure.mayRetryOnNewConnection = completedExchanges > 0 && exchange.head == nil && exchange.timing.firstByte == .zero
                && (error.kind == .connectionClosed || error.kind == .transport || error.tls?.kind == .truncated)
                && (exchange.request.isIdempotent || !exchange.wroteAnything)
            exchange.response.resume(with: .failure(failure))
            exchange.bodyBuffer?.assumeIsolated { $0.finish(failure) }
        }
        report(self, false)
    }

    private func shut(_ reason: HTTPClientError) {
        guard closedReason == nil else { return }
        closedReason = reason
        readTimer?.close()
        readTimer = nil
        deadlineTimer?.close()
        deadlineTimer = nil
        stream.assumeIsolated { $0.close() }
    }

    private func armDeadline(_ deadline: ContinuousClock.Instant) {
        if deadlineTimer == nil { deadlineTimer = try? LoopTimer(on: loop) }
        deadlineTimer?.start(after: deadline - .now) { [weak self] in
            self?.assumeIsolated { $0.fail(HTTPClientError(.deadlineExceeded)) }
        }
    }

    /// One timer serves the read-idle timeout and, until the final head
    /// arrives, the head deadline: it is set for whichever comes first.
    private func restartReadTimer(for exchange: Exchange, now: ContinuousClock.Instant? = nil) {
        guard self.exchange === exchange, !exchange.responseDone, !exchange.readingPaused else { return }
        var due = exchange.bounds.readIdle
        exchange.readTimerIsHeadDeadline = false
        if exchange.head == nil, let headDeadline = exchange.headDeadline {
            let left = headDeadline - (now ?? .now)
            if due.map({ left <= $0 }) ?? true {
                due = left
                exchange.readTimerIsHeadDeadline = true
            }
        }
        guard let due else {
            readTimer?.stop()
            return
        }
        if readTimer == nil {
            readTimer = try? LoopTimer(on: loop)
            readTimer?.setAction { [weak self] in
                self?.assumeIsolated { me in
                    guard let exchange = me.exchange else { return }
                    if exchange.readTimerIsHeadDeadline {
                        me.fail(HTTPClientError(.responseHeadTimeout, "no response head within \(exchange.bounds.responseHead ?? .zero) of sending the request"))
                    } else {
                        me.fail(HTTPClientError(.readTimeout, "no bytes for \(exchange.bounds.readIdle ?? .zero)"))
                    }
                }
            }
        }
        readTimer?.restart(after: max(due, .zero))
    }
}

/// The state of one request/response on a connection.
final class Exchange: @unchecked Sendable {
    // @unchecked: only its connection touches it, on the connection's loop
    // (the sending child task runs isolated to that same connection).
    let request: PreparedRequest
    let mode: HTTP1Connection.BodyMode
    let bounds: ExchangeBounds
    let start: ContinuousClock.Instant
    let response = OnceContinuation<HTTP1Connection.Response>()
    var timing: RequestTiming
    var head: HTTP1Head?
    var body: [UInt8] = []
    var bodyBuffer: ResponseBodyBuffer?
    var received = 0
    var expectedLength: Int?
    var interim = false
    var keepAlive = true
    var requestSent = false
    var wroteAnything = false
    var sendDone = false
    var responseDone = false
    var readingPaused = false
    /// Interim (1xx) responses seen so far.
    var interimResponses = 0
    /// When the final head is due, once the request is sent whole.
    var headDeadline: ContinuousClock.Instant?
    /// The read timer is set for the head deadline, not the read-idle timeout.
    var readTimerIsHeadDeadline = false
    /// Inflates a collected body as it arrives.
    var inflater: Inflater?

    init(request: PreparedRequest, mode: HTTP1Connection.BodyMode, bounds: ExchangeBounds, start: ContinuousClock.Instant,
         timing: RequestTiming) {
        self.request = request
        self.mode = mode
        self.bounds = bounds
        self.start = start
        self.timing = timing
    }
}

/// A request ready for the wire: its serialized head and its body, with any file already open.
struct PreparedRequest: Sendable {
    enum Body: Sendable {
        case bytes([UInt8])
        case stream(length: Int?, @Sendable () -> AnyByteChunks)
        case file(LoopFile)
    }

    let method: String
    let target: HTTPTarget
    let isIdempotent: Bool
    let head: [UInt8]
    let body: Body?
    let uploadProgress: (@Sendable (Int, Int?) -> Void)?
    let downloadProgress: (@Sendable (Int, Int?) -> Void)?

    /// For error messages only (built when needed).
    var url: String { target.description }
}
