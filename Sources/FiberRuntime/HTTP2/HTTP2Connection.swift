/// One HTTP/2 connection: a socket stream, an nghttp2 session, and as many
/// streams at once as the server and the client allow. An actor pinned to
/// its loop, as `HTTP1Connection` is.
///
/// nghttp2 does the framing, HPACK, stream states and flow control; the
/// decisions it leaves (capacity, GOAWAY, floods, PINGs) are
/// `HTTP2ConnectionStateMachine`'s. `HTTP2ConnectionCore` holds the state and
/// answers the session's callbacks, which nghttp2 makes synchronously from
/// inside the calls this actor makes, on the loop.
actor HTTP2Connection: LoopIsolated {
    /// What the pool hears, on the loop.
    enum Report {
        /// A stream ended: its slot is free.
        case streamEnded
        /// The server changed how many streams it takes at once.
        case capacity(Int)
        /// No new stream may start (GOAWAY); streams in flight finish.
        case draining
        /// The connection is closed.
        case closed
    }

    nonisolated let id: Int
    nonisolated let loop: EventLoop
    nonisolated let createdAt: ContinuousClock.Instant
    /// Connect-phase timings of the first exchange.
    nonisolated let setupTiming: RequestTiming
    nonisolated var unownedExecutor: UnownedSerialExecutor { loop.executor }
    /// The state; reached only in this actor's isolation.
    let core: HTTP2ConnectionCore

    /// Call on the loop thread, with a stream of the same loop; it sends the connection preface at once.
    ///
    /// - Throws: `HTTPClientError` `.http2` when nghttp2 cannot start a session.
    init(id: Int, stream: SocketStream, configuration: HTTP2Configuration, maxHeaderBytes: Int,
         setupTiming: RequestTiming, report: @escaping (HTTP2Connection, Report) -> Void) throws(HTTPClientError) {
        self.id = id
        self.loop = stream.loop
        self.createdAt = .now
        self.setupTiming = setupTiming
        let core = try HTTP2ConnectionCore(socket: stream, loop: stream.loop, configuration: configuration,
                                           maxHeaderBytes: maxHeaderBytes)
        self.core = core
        core.shell = self
        core.report = { [weak self] event in
            guard let self else { return }
            report(self, event)
        }
        stream.assumeIsolated { stream in
            stream.setInPlaceReader { [weak self] event in
                self?.onLoop(event) { me, event in me.core.didRead(event) }
            }
        }
        core.flush()
    }

    /// Starts `request` on a new stream; its HEADERS (and a body in memory)
    /// go out at once. Await the answer with `response(to:on:)`.
    ///
    /// - Throws: `HTTPClientError`: `.invalidHeader` for a field that may not
    ///   be sent, `.connectionClosed` (safe to retry) when the connection is gone.
    func begin(_ request: PreparedRequest, mode: HTTP1Connection.BodyMode, bounds: ExchangeBounds,
               start: ContinuousClock.Instant, timing: RequestTiming) throws(HTTPClientError) -> HTTP2Stream {
        try core.begin(request, mode: mode, bounds: bounds, start: start, timing: timing)
    }

    /// Sends a streamed body as the window allows, beside reading the response.
    ///
    /// - Throws: as `response(to:on:)`, and `.requestBody` when the body's source fails.
    func upload(_ stream: HTTP2Stream) async throws -> HTTP1Connection.Response {
        try await withTaskCancellationHandler {
            async let sending: Void = sendStreamed(stream)
            let response = try await stream.response.wait()
            if response.stream == nil { await sending }
            return response
        } onCancel: { [weak self] in
            self?.cancel(stream)
        }
    }

    /// Waits for `stream`'s response (its head, when streaming); cancelling the caller's task resets the stream.
    ///
    /// - Throws: `HTTPClientError`: `.http2` (the stream reset, the connection
    ///   gone away or broken) with the HTTP/2 error code, `.connectionClosed`,
    ///   `.transport`, `.tls`, the exchange's bounds, `.bodyTooLarge`,
    ///   `.headersTooLarge`, `.decompressionFailed`, `.malformedResponse`, `.cancelled`.
    static func response(to stream: HTTP2Stream, on connection: HTTP2Connection,
                         isolation: isolated (any Actor)? = #isolation) async throws -> HTTP1Connection.Response {
        try await withTaskCancellationHandler {
            try await stream.response.wait()
        } onCancel: { [weak connection] in
            connection?.cancel(stream)
        }
    }

    /// Closes the connection; streams in flight fail with `reason`.
    func close(_ reason: HTTPClientError = HTTPClientError(.shutdown)) {
        core.close(reason)
    }

    /// Streams the pool may lease at once.
    var capacity: Int { core.capacity }

    /// Takes no new stream; closes once the streams in flight end (the pool retires it).
    func drain() {
        core.drain()
    }

    private nonisolated func cancel(_ stream: HTTP2Stream) {
        try? loop.execute {
            self.onLoop(stream) { me, stream in me.core.cancel(stream) }
        }
    }

    private func sendStreamed(_ stream: HTTP2Stream) async {
        guard case .streamed(let chunks, let length)? = stream.request.body, let upload = stream.upload else { return }
        do {
            var sent = 0
            for try await chunk in chunks {
                guard !stream.isFinished else { return }
                if let length, sent + chunk.count > length {
                    throw HTTPClientError(.requestBody, "the body stream yielded more than its declared \(length) bytes")
                }
                sent += chunk.count
                upload.append(chunk)
                core.bodyReady(stream)
                if upload.buffered >= HTTP2Upload.highWatermark {
                    let drained = OnceContinuation<Void>()
                    upload.drained = drained
                    try await drained.wait()
                }
            }
            if let length, sent != length {
                throw HTTPClientError(.requestBody, "the body stream yielded \(sent) bytes, not its declared \(length)")
            }
            upload.end()
            core.bodyReady(stream)
        } catch {
            core.fail(stream, error as? HTTPClientError ?? HTTPClientError(.requestBody, "\(error)"), resetCode: 0x8)
        }
    }

    // MARK: Timers, called back on the loop

    nonisolated func streamTimerFired(_ stream: HTTP2Stream) {
        onLoop(stream) { me, stream in me.core.streamTimerFired(stream) }
    }

    nonisolated func idleTimerFired() {
        onLoop(()) { me, _ in me.core.idleTimerFired() }
    }

    nonisolated func writeDone(_ result: Result<Void, any Error>) {
        onLoop(result) { me, result in me.core.writeDone(result) }
    }
}
