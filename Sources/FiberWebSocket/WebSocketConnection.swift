import FiberRuntime

/// A WebSocket client connection (RFC 6455, RFC 7692): an actor pinned to
/// its event loop that owns the socket, frames messages, answers pings,
/// keeps the connection alive and runs the closing handshake.
///
/// Lifecycle: connecting (TCP and the HTTP/1.1 upgrade) → connected → closing
/// → disconnected. Events report each step; `.disconnected` is always the
/// last. An open connection keeps itself alive until it disconnects, as a
/// socket would: dropping the last reference does not close it; `close()` does.
///
/// Reads are parsed in place on the loop; when the consumer of `events` falls
/// behind by `receiveHighWatermark` bytes, the socket stops being read.
public actor WebSocketConnection: FiberWebSocket {
    /// The loop that runs this connection.
    public nonisolated let loop: EventLoop
    /// The events; one consumer.
    public nonisolated let events: WebSocketEvents
    /// The subprotocol the server chose, once connected.
    public nonisolated var subprotocol: String? { shared.withLock { $0.subprotocol } }
    /// The permessage-deflate parameters in force, once connected.
    public nonisolated var compression: PerMessageDeflate? { shared.withLock { $0.compression } }
    /// The current state.
    public nonisolated var state: WebSocketState { shared.withLock { $0.state } }

    public nonisolated var unownedExecutor: UnownedSerialExecutor { loop.executor }

    /// The header fields of the server's 101, once connected, handed over
    /// once (to the pipeline that opened the connection): a connection does
    /// not keep them for its whole life.
    nonisolated func takeUpgradeHeaders() -> HTTPHeaders {
        shared.withLock { shared in
            defer { shared.upgradeHeaders = HTTPHeaders() }
            return shared.upgradeHeaders
        }
    }

    struct Shared {
        var state = WebSocketState.connecting
        var subprotocol: String?
        var compression: PerMessageDeflate?
        var upgradeHeaders = HTTPHeaders()
    }

    private nonisolated let shared = Locked(Shared())
    private nonisolated let buffer: EventBuffer
    let configuration: WebSocketConfiguration
    private var transport: WebSocketTransport?
    private var decoder: WebSocketFrameDecoder
    private var assembler = WebSocketMessageAssembler()
    private var compressor: DeflateCompressor?
    private var closing = WebSocketCloseStateMachine()
    private var pendingClose: (code: UInt16, reason: String)?
    private var openWaiters: [CheckedContinuation<Void, any Error>] = []
    private var finishedError: WebSocketError??
    private var closeTimer: ScheduledTask?
    private var pingTimer: ScheduledTask?
    private var pongTimer: ScheduledTask?
    private var pingCounter: UInt32 = 0
    private var readingPaused = false
    /// Every outgoing frame, in the order it must leave in (see `WebSocketOutbox`).
    private var outbox = WebSocketOutbox()
    /// Senders whose message is queued behind another write, by message number.
    private var sendWaiters: [Int: CheckedContinuation<Void, any Error>] = [:]
    /// Outcomes of queued messages whose sender was not yet waiting.
    private var sendResults: [Int: Result<Void, WebSocketError>] = [:]
    /// Closes the socket if the queued frames before its close never leave (a peer that stopped reading).
    private var lingerTimer: ScheduledTask?
    private var keepAlive: WebSocketConnection?
    private let maskKeys = MaskKeySource()

    init(loop: EventLoop, configuration: WebSocketConfiguration) {
        self.loop = loop
        self.configuration = configuration
        self.buffer = EventBuffer(highWatermark: configuration.receiveHighWatermark, lowWatermark: configuration.receiveLowWatermark)
        self.events = WebSocketEvents(buffer: buffer)
        self.decoder = WebSocketFrameDecoder(role: .client, maxFrameSize: configuration.maxFrameSize)
    }

    // MARK: Opening

    /// Runs the opening handshake, then starts framing. Call once.
    func start(url: HTTPTarget, headers: HTTPHeaders, subprotocols: [String]) async {
        keepAlive = self
        // Called on the loop, only when the answer changes.
        buffer.controlReading(on: loop) { [weak self] reading in
            self?.assumeIsolated { $0.setReading(reading) }
        }
        let handshake = WebSocketHandshake(key: WebSocketHandshake.randomKey(), subprotocols: subprotocols,
                                           deflate: configuration.compression)
        let opened: Opened
        do {
            // Validated before the connection started: the selector's errors cannot happen here.
            let proxy = try configuration.proxy.selector().proxy(for: url)
            opened = try await loop.withTimeout(configuration.connectTimeout) { [loop, tls = configuration.tls] in
                try await Self.handshake(url: url, headers: headers, handshake: handshake, tls: tls, proxy: proxy, loop: loop)
            }
        } catch {
            let failure = error as? WebSocketError
                ?? WebSocketError(.transport, error is DeadlineExceeded
                    ? "no connection within \(configuration.connectTimeout)" : "connect failed: \(error)",
                    transport: TransportError(.timeout, operation: "connect", host: url.host))
            finish(code: WebSocketCloseCode.abnormal, reason: failure.message, error: failure)
            return
        }
        didOpen(opened)
    }

    /// Fails at once (a URL that cannot be connected to).
    func fail(_ error: WebSocketError) {
        keepAlive = self
        finish(code: WebSocketCloseCode.abnormal, reason: error.message, error: error)
    }

    private func didOpen(_ opened: Opened) {
        transport = opened.transport
        if let deflate = opened.negotiated.deflate {
            assembler = WebSocketMessageAssembler(maxMessageSize: configuration.maxMessageSize, deflate: deflate)
            compressor = DeflateCompressor(windowBits: deflate.clientMaxWindowBits ?? 15,
                                           noContextTakeover: deflate.clientNoContextTakeover)
        } else {
            assembler = WebSocketMessageAssembler(maxMessageSize: configuration.maxMessageSize)
        }
        shared.withLock {
            $0.state = .connected
            $0.subprotocol = opened.negotiated.subprotocol
            $0.compression = opened.negotiated.deflate
            $0.upgradeHeaders = opened.headers
        }
        buffer.yield(.connected)
        for waiter in openWaiters { waiter.resume() }
        openWaiters = []
        if !opened.leftover.isEmpty {
            decoder.append(opened.leftover)
            processFrames()
        }
        opened.transport.setReader(for: self)
        // Taking the reader starts reading; the first events may already have filled the buffer.
        if readingPaused { opened.transport.pauseReading() }
        schedulePing()
        if let pendingClose {
            self.pendingClose = nil
            perform(closing.closeRequested(code: pendingClose.code, reason: pendingClose.reason))
        }
    }

    /// Waits until the handshake completed.
    ///
    /// - Throws: the `WebSocketError` that ended the connection before it opened.
    func waitUntilOpen() async throws(WebSocketError) {
        do {
            try await withCheckedThrowingContinuation { (c: CheckedContinuation<Void, any Error>) in
                // Decided here, not before: the runtime may run other work on
                // this actor (the handshake's end) before this body.
                if case .some(.some(let error)) = finishedError {
                    c.resume(throwing: error)
                } else if transport != nil {
                    c.resume()
                } else if finishedError != nil {
                    c.resume(throwing: WebSocketError(.notConnected, "closed before the handshake completed"))
                } else {
                    openWaiters.append(c)
                }
            }
        } catch {
            throw error as? WebSocketError ?? WebSocketError(.notConnected, "\(error)")
        }
    }

    // MARK: Reading

    func didRead(_ read: SocketStream.InPlaceRead) {
        switch read {
        case .bytes(let bytes):
            guard closing.state != .closed else { return }
            decoder.append(bytes)
            processFrames()
        case .end:
            perform(closing.transportEnded(nil))
        case .failure(let error):
            perform(closing.transportEnded(WebSocketError(.transport, "the connection failed", transport: error)))
        }
    }

    private func processFrames() {
        do {
            while closing.state != .closed, let frame = try decoder.next() {
                guard let output = try assembler.consume(frame) else { continue }
                switch output {
                case .message(let message):
                    buffer.yield(.message(message))
                case .ping(let payload):
                    if closing.state == .open { writeControl(.pong, payload) }
                case .pong:
                    pongTimer?.cancel()
                    pongTimer = nil
                case .close(let code, let reason):
                    perform(closing.closeReceived(code: code, reason: reason))
                }
            }
        } catch {
            perform(closing.failed(error))
        }
    }

    /// The event buffer's backpressure: stop reading the socket while the
    /// consumer of `events` is behind, go on once it caught up.
    private func setReading(_ reading: Bool) {
        readingPaused = !reading
        guard let transport, closing.state != .closed else { return }
        if reading { transport.resumeReading() } else { transport.pauseReading() }
    }

    // MARK: Sending

    /// Sends `message`, compressed when permessage-deflate is in force and it
    /// is large enough, split into frames of `maxOutgoingFrameSize`; returns
    /// once the kernel has taken every frame. Messages leave in the order
    /// `send` was called; a pong for a ping received before the call leaves
    /// first.
    ///
    /// - Throws: `WebSocketError` `.notConnected` unless connected (no data
    ///   after a close frame) or when the connection is dropped before the
    ///   message could leave (ping or close timeout), `.transport` if the write fails.
    public func send(_ message: WebSocketMessage) async throws(WebSocketError) {
        guard let transport, closing.canSendData else {
            throw WebSocketError(.notConnected, "cannot send: the connection is \(state)")
        }
        var opcode = WebSocketOpcode.binary
        var payload: [UInt8]
        switch message {
        case .text(let text):
            opcode = .text
            payload = Array(text.utf8)
        case .binary(let bytes):
            payload = bytes
        }
        var rsv1 = false
        if let compressor, payload.count >= (configuration.compression?.minimumSizeToCompress ?? 0) {
            payload = try compressor.compress(payload)
            rsv1 = true
        }
        let frames = WebSocketFrameEncoder.fragments(opcode: opcode, payload: payload, rsv1: rsv1,
                                                     maxFramePayload: configuration.maxOutgoingFrameSize)
        let wire = frames.map { WebSocketFrameEncoder.encode($0, maskKey: maskKeys.next()) }
        // Queued now, before any suspension: whatever is decided later (a
        // pong, another message, the close frame) leaves after it.
        guard let number = outbox.enqueueMessage(wire) else {
            throw WebSocketError(.notConnected, "cannot send: the connection is \(state)")
        }
        if outbox.claimWriter() {
            // Nobody was writing, so nothing was queued before: this sender
            // writes its own message, then hands what came meanwhile to a writer task.
            guard case .frames(_, number)? = outbox.next() else { preconditionFailure("the outbox lost a message") }
            let result = await write(wire, on: transport)
            if outbox.handOff() { startDraining() }
            try result.get()
            return
        }
        do {
            try await withCheckedThrowingContinuation { (c: CheckedContinuation<Void, any Error>) in
                // Decided here: the writer may have finished the message before this body ran.
                if let result = sendResults.removeValue(forKey: number) {
                    c.resume(with: result)
                } else {
                    sendWaiters[number] = c
                }
            }
        } catch {
            throw error as? WebSocketError ?? WebSocketError(.transport, "the write failed")
        }
    }

    /// Sends a ping with `payload` (at most 125 bytes); the pong is not awaited.
    ///
    /// - Throws: `WebSocketError` `.notConnected` unless connected.
    public func ping(_ payload: [UInt8] = []) throws(WebSocketError) {
        guard transport != nil, closing.state == .open else { throw WebSocketError(.notConnected, "cannot ping") }
        writeControl(.ping, Array(payload.prefix(125)))
    }

    /// Queues a ping, pong or close frame at the moment it is decided (the
    /// read path cannot wait), so that nothing decided later overtakes it.
    private func writeControl(_ opcode: WebSocketOpcode, _ payload: [UInt8]) {
        guard transport != nil else { return }
        let bytes = WebSocketFrameEncoder.encode(WebSocketFrame(opcode: opcode, payload: payload), maskKey: maskKeys.next())
        _ = opcode == .close ? outbox.enqueueClose(bytes) : outbox.enqueueControl(bytes)
        startWriter()
    }

    /// Starts the writer unless one is running.
    private func startWriter() {
        if outbox.claimWriter() { startDraining() }
    }

    /// Runs the writer in a task that starts on the loop itself: a plain `Task`
    /// would first wait for a thread of the shared pool, and a pool kept busy
    /// elsewhere held queued pongs and close frames back past the close timeout.
    private func startDraining() {
        Task(executorPreference: loop) { await self.drainOutbox() }
    }

    /// The writer: performs the outbox's items in order until it is empty.
    private func drainOutbox() async {
        while let item = outbox.next() {
            guard let transport else {
                // No socket to write to: a queued message's sender must still hear.
                if case .frames(_, let number?) = item {
                    complete(number, .failure(WebSocketError(.notConnected, "the connection closed before the message was sent")))
                }
                continue
            }
            switch item {
            case .frames(let buffers, let number):
                let result = await write(buffers, on: transport)
                if let number { complete(number, result) }
            case .closeSocket:
                lingerTimer?.cancel()
                lingerTimer = nil
                transport.close()
            }
        }
    }

    private func write(_ buffers: [[UInt8]], on transport: WebSocketTransport) async -> Result<Void, WebSocketError> {
        do {
            try await transport.write(buffers)
            return .success(())
        } catch {
            return .failure(WebSocketError(.transport, "the write failed", transport: error as? TransportError))
        }
    }

    /// Closes the socket now, dropping what is queued (the peer is gone or
    /// does not answer, so it may never read it); their senders fail.
    private func closeSocketNow() {
        lingerTimer?.cancel()
        lingerTimer = nil
        let failure = WebSocketError(.notConnected, "the connection closed before the message was sent")
        for number in outbox.abort() { complete(number, .failure(failure)) }
        transport?.close()
    }

    /// Hands a queued message's outcome to its sender, or keeps it until the sender waits.
    private func complete(_ number: Int, _ result: Result<Void, WebSocketError>) {
        if let waiter = sendWaiters.removeValue(forKey: number) {
            waiter.resume(with: result.mapError { $0 as any Error })
        } else {
            sendResults[number] = result
        }
    }

    // MARK: Closing

    /// Starts the closing handshake; `.disconnected` follows when the server
    /// answers, or after `closeTimeout`. Before the handshake completes, the
    /// close waits for it. Safe to call more than once.
    public nonisolated func close(code: UInt16, reason: String) {
        shared.withLock { if $0.state == .connected { $0.state = .closing } }
        do {
            try loop.execute { self.assumeIsolated { $0.requestClose(code: code, reason: reason) } }
        } catch {
            // The loop is gone; so is the socket.
        }
    }

    private func requestClose(code: UInt16, reason: String) {
        let reason = String(decoding: Array(reason.utf8).prefix(123), as: UTF8.self)
        guard transport != nil else {
            if finishedError == nil { pendingClose = (code, reason) }
            return
        }
        perform(closing.closeRequested(code: code, reason: reason))
    }

    /// Performs the close machine's actions. `closingNow`: the socket closes
    /// at once (the peer did not answer), not after the queued frames.
    private func perform(_ actions: [WebSocketCloseStateMachine.Action], closingNow: Bool = false) {
        for action in actions {
            switch action {
            case .sendClose(let code, let reason):
                var payload: [UInt8] = []
                if let code { payload = [UInt8(code >> 8), UInt8(code & 0xFF)] + Array(reason.utf8) }
                writeControl(.close, payload)
                shared.withLock { if $0.state == .connected { $0.state = .closing } }
            case .startTimer:
                closeTimer = try? loop.scheduleTask(in: configuration.closeTimeout) { [weak self] in
                    self?.assumeIsolated { $0.perform($0.closing.timerFired(), closingNow: true) }
                }
            case .closeSocket:
                guard transport != nil else { continue }
                if closingNow {
                    closeSocketNow()
                    continue
                }
                // After the queued frames (the close frame last) have left, or
                // after the close timeout if they cannot.
                outbox.enqueueSocketClose()
                startWriter()
                if outbox.isWriting, lingerTimer == nil {
                    lingerTimer = try? loop.scheduleTask(in: configuration.closeTimeout) { [weak self] in
                        self?.assumeIsolated { $0.closeSocketNow() }
                    }
                }
            case .finish(let code, let reason, let error):
                finish(code: code, reason: reason, error: error)
            }
        }
    }

    private func finish(code: UInt16, reason: String, error: WebSocketError?) {
        guard finishedError == nil else { return }
        finishedError = .some(error)
        shared.withLock { $0.state = .disconnected }
        for timer in [closeTimer, pingTimer, pongTimer] { timer?.cancel() }
        if let error { buffer.yield(.error(error)) }
        buffer.yield(.disconnected(code: code, reason: reason))
        buffer.finish()
        let failure = error ?? WebSocketError(.notConnected, "closed before the handshake completed")
        for waiter in openWaiters { waiter.resume(throwing: failure) }
        openWaiters = []
        keepAlive = nil
    }

    /// Message bytes received and not yet consumed from `events`.
    nonisolated var bufferedEventBytes: Int { buffer.bufferedSize }
    /// True while reading is paused for backpressure.
    var isReadingPaused: Bool { readingPaused }

    // MARK: Keep-alive

    private func schedulePing() {
        guard let interval = configuration.pingInterval else { return }
        pingTimer = try? loop.scheduleTask(in: interval) { [weak self] in
            self?.assumeIsolated { $0.sendKeepAlivePing() }
        }
    }

    private func sendKeepAlivePing() {
        guard closing.state == .open else { return }
        pingCounter &+= 1
        let c = pingCounter
        writeControl(.ping, [UInt8(c >> 24), UInt8((c >> 16) & 0xFF), UInt8((c >> 8) & 0xFF), UInt8(c & 0xFF)])
        if pongTimer == nil {
            pongTimer = try? loop.scheduleTask(in: configuration.pingTimeout) { [weak self] in
                self?.assumeIsolated { $0.pongMissed() }
            }
        }
        schedulePing()
    }

    private func pongMissed() {
        pongTimer = nil
        perform(closing.transportEnded(WebSocketError(.pingTimeout, "no pong within \(configuration.pingTimeout): the peer is gone")),
                closingNow: true)
    }
}
