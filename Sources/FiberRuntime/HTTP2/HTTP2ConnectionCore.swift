/// The state of an `HTTP2Connection` and its answers to the nghttp2 session:
/// used only inside the actor's isolation, on its loop (nghttp2 calls the
/// delegate methods synchronously from inside the actor's own calls).
final class HTTP2ConnectionCore: NGHTTP2SessionDelegate {
    private let socket: SocketStream
    private let loop: EventLoop
    private let maxHeaderBytes: Int
    private var session: NGHTTP2Session!
    private var rules: HTTP2ConnectionStateMachine
    private var streams: [Int32: HTTP2Stream] = [:]
    weak var shell: HTTP2Connection?
    var report: (HTTP2Connection.Report) -> Void = { _ in }

    private var output: [UInt8] = []
    private var writing = false
    /// A flush is queued on the loop: the requests that start before it runs go out in one write.
    private var flushQueued = false
    private var closedWith: HTTPClientError?
    /// Found inside a callback: the connection closes once the session call returns.
    private var pendingClose: HTTPClientError?
    private var sessionMessage: String?
    private var goAway: (lastStream: Int32, code: UInt32, debug: String)?
    private var completedStreams = 0
    /// The capacity the pool was last told of: SETTINGS are reported once the read that
    /// brought them is processed, so that two in one read (a server that sends its limit
    /// in a second frame) never lease streams on the first's larger figure.
    private var reportedCapacity = 1
    private var idleTimer: LoopTimer?
    private var spareTimers: [LoopTimer] = []
    private var connectionConsumed = 0
    private var streamsConsumed: [(Int32, Int)] = []

    /// Output is written in blocks of about this size.
    private static let writeBlock = 64 * 1024

    init(socket: SocketStream, loop: EventLoop, configuration: HTTP2Configuration, maxHeaderBytes: Int) throws(HTTPClientError) {
        self.socket = socket
        self.loop = loop
        self.maxHeaderBytes = maxHeaderBytes
        rules = HTTP2ConnectionStateMachine(limits: .init(
            maxConcurrentStreams: configuration.maxConcurrentStreams, maxControlFrames: configuration.maxControlFramesPer10Seconds,
            pingInterval: configuration.pingInterval, pingTimeout: configuration.pingTimeout))
        session = try NGHTTP2Session(delegate: self, settings: .init(
            maxConcurrentStreams: configuration.maxConcurrentStreams, streamWindowSize: configuration.streamWindowSize,
            connectionWindowSize: configuration.connectionWindowSize, maxHeaderListSize: maxHeaderBytes,
            maxContinuationFrames: configuration.maxContinuationFrames))
        if let interval = configuration.pingInterval { setIdleTimer(.ping(after: interval)) }
    }

    /// Streams the pool may lease at once.
    var capacity: Int { rules.capacity }

    // MARK: Requests

    /// Starts a stream for a request the pool leased a slot for; when it cannot
    /// start, the slot is given back before the error is thrown.
    func begin(_ request: PreparedRequest, mode: HTTP1Connection.BodyMode, bounds: ExchangeBounds,
               start: ContinuousClock.Instant, timing: RequestTiming) throws(HTTPClientError) -> HTTP2Stream {
        do {
            return try open(request, mode: mode, bounds: bounds, start: start, timing: timing)
        } catch {
            report(.streamEnded)
            throw error
        }
    }

    private func open(_ request: PreparedRequest, mode: HTTP1Connection.BodyMode, bounds: ExchangeBounds,
                      start: ContinuousClock.Instant, timing: RequestTiming) throws(HTTPClientError) -> HTTP2Stream {
        guard closedWith == nil, rules.phase == .active else {
            var error = HTTPClientError(.connectionClosed, "the HTTP/2 connection closed before the request started")
            error.mayRetryOnNewConnection = true
            throw error
        }
        let fields = HTTP2RequestFields.fields(method: request.method, target: request.target, headers: request.headers,
                                               bodyLength: request.bodyLength, acceptEncoding: request.acceptEncoding)
        let stream = HTTP2Stream(request: request, mode: mode, bounds: bounds, start: start, timing: timing)
        stream.timing.reusedConnection = completedStreams > 0 || !streams.isEmpty
        switch request.body {
        case nil: break
        case .bytes(let bytes)?: stream.upload = HTTP2Upload(whole: bytes)
        case .data(let data)?: stream.upload = HTTP2Upload(whole: Array(data))
        case .streamed?: stream.upload = HTTP2Upload()
        }
        stream.id = try session.submitRequest(fields, hasBody: request.body != nil)
        streams[stream.id] = stream
        if case .stream(let low, let high) = mode {
            // Weak: the stream holds the buffer, which holds this closure.
            stream.bodyBuffer = ResponseBodyBuffer(loop: loop, lowWatermark: low, highWatermark: high) { [weak shell, weak stream] reading in
                guard let stream else { return }
                shell?.assumeIsolated { $0.core.consumerChanged(stream, reading: reading) }
            }
        }
        if request.body == nil { requestSent(stream) }
        if let timer = rules.streamOpened() { setIdleTimer(timer) }
        armTimer(of: stream)
        queueFlush()
        return stream
    }

    /// A streamed body has more bytes (or its end) for `stream`.
    func bodyReady(_ stream: HTTP2Stream) {
        guard !stream.isFinished, streams[stream.id] === stream else { return }
        stream.lastActivity = .now
        session.resumeBody(of: stream.id)
        settle()
    }

    func cancel(_ stream: HTTP2Stream) {
        fail(stream, HTTPClientError(.cancelled), resetCode: 0x8)
    }

    /// Fails `stream` with `error` and resets it with `resetCode` (nil: it is closed already).
    func fail(_ stream: HTTP2Stream, _ error: HTTPClientError, resetCode: UInt32?) {
        guard !stream.isFinished else { return }
        finish(stream, failing: error)
        if let resetCode, streams[stream.id] === stream {
            session.reset(stream.id, code: resetCode)
            settle()
        }
    }

    /// The consumer of a streamed body stopped (false) or went on reading (true).
    func consumerChanged(_ stream: HTTP2Stream, reading: Bool) {
        stream.consumerReading = reading
        guard reading, streams[stream.id] === stream else { return }
        stream.lastActivity = .now
        if stream.unconsumed > 0 {
            session.consumeStream(stream.id, stream.unconsumed)
            stream.unconsumed = 0
            settle()
        }
        armTimer(of: stream)
    }

    func drain() {
        if rules.drain() == .close { close(HTTPClientError(.connectionClosed, "closed by the pool")) }
    }

    /// Closes the socket and fails every stream in flight.
    func close(_ reason: HTTPClientError) {
        guard closedWith == nil else { return }
        closedWith = reason
        rules.closed()
        idleTimer?.close()
        idleTimer = nil
        let failing = Array(streams.values)
        streams.removeAll()
        for stream in failing {
            var error = reason.at(stream.request.url)
            error.mayRetryOnNewConnection = reason.mayRetryOnNewConnection
                || (completedStreams > 0 && !stream.sawResponseBytes && stream.request.isIdempotent)
            finish(stream, failing: error)
            stream.timer?.close()
        }
        for timer in spareTimers { timer.close() }
        spareTimers.removeAll()
        if reason.kind != .transport, reason.kind != .tls {
            // A GOAWAY that says why, when the socket still takes it.
            session.terminate(code: reason.http2ErrorCode ?? 0)
            try? session.pendingOutput { block in
                _ = try? socket.onLoop(block) { socket, block in try socket.startWrite(CollectionOfOne(block)) }
                return true
            }
        }
        socket.assumeIsolated { $0.close() }
        report(.closed)
    }

    // MARK: Bytes in and out

    func didRead(_ event: SocketStream.InPlaceRead) {
        guard closedWith == nil else { return }
        switch event {
        case .bytes(let bytes):
            do throws(HTTPClientError) {
                try session.receive(bytes)
            } catch {
                close(pendingClose.take() ?? detailed(error))
                return
            }
            settle()
        case .end:
            close(endError())
        case .failure(let error):
            let kind: HTTPClientError.Kind = error.kind == .closed ? .connectionClosed : error.kind == .tls ? .tls : .transport
            close(HTTPClientError(kind, transport: error))
        }
    }

    /// Writes the new stream's HEADERS once the tasks already queued on the loop have run:
    /// requests that start together (their answers came in one read) share one write,
    /// not a system call each.
    private func queueFlush() {
        guard !flushQueued else { return }
        flushQueued = true
        do {
            try loop.execute { [weak shell] in
                shell?.assumeIsolated { $0.core.queuedFlush() }
            }
        } catch {
            flushQueued = false
            settle()
        }
    }

    func queuedFlush() {
        flushQueued = false
        settle()
    }

    /// After every session call: gives consumed bytes back to the windows,
    /// writes what the session has to send, and closes when the session is over.
    private func settle() {
        guard closedWith == nil else { return }
        if connectionConsumed > 0 {
            session.consumeConnection(connectionConsumed)
            connectionConsumed = 0
        }
        for (stream, count) in streamsConsumed { session.consumeStream(stream, count) }
        streamsConsumed.removeAll(keepingCapacity: true)
        flush()
        if rules.phase == .active, rules.capacity != reportedCapacity {
            reportedCapacity = rules.capacity
            report(.capacity(reportedCapacity))
        }
        if let reason = pendingClose.take() {
            close(reason)
        } else if !session.isAlive {
            close(endError())
        }
    }

    /// Writes the session's output, a block at a time, until the kernel
    /// stops taking it; then waits for that write before framing more, so that
    /// a slow server bounds what the client holds.
    func flush() {
        guard closedWith == nil else { return }
        while !writing {
            var full = false
            do throws(HTTPClientError) {
                try session.pendingOutput { block in
                    output.append(contentsOf: block)
                    full = output.count >= Self.writeBlock
                    return !full
                }
            } catch {
                pendingClose = pendingClose ?? detailed(error)
                return
            }
            guard !output.isEmpty else { return }
            let pending: OnceContinuation<Void>?
            do {
                pending = try socket.onLoop(output) { socket, bytes in try socket.startWrite(CollectionOfOne(bytes)) }
            } catch {
                output.removeAll(keepingCapacity: true)
                pendingClose = pendingClose ?? HTTPClientError.wrapping(error, url: "")
                return
            }
            output.removeAll(keepingCapacity: true)
            if let pending {
                writing = true
                Task(executorPreference: loop) { [weak shell] in
                    do {
                        try await pending.wait()
                        shell?.writeDone(.success(()))
                    } catch {
                        shell?.writeDone(.failure(error))
                    }
                }
                return
            }
            if !full { return }
        }
    }

    func writeDone(_ result: Result<Void, any Error>) {
        writing = false
        switch result {
        case .success: settle()
        case .failure(let error):
            let transport = error as? TransportError
            close(transport.map { HTTPClientError($0.kind == .tls ? .tls : .transport, transport: $0) }
                  ?? HTTPClientError(.transport, "\(error)"))
        }
    }

    // MARK: Timers

    private func armTimer(of stream: HTTP2Stream) {
        guard let due = stream.nextDue(), !stream.isFinished else {
            stream.timer?.stop()
            return
        }
        if stream.timer == nil {
            stream.timer = spareTimers.popLast() ?? (try? LoopTimer(on: loop))
            // Weak: the stream holds the timer, which holds this closure.
            stream.timer?.setAction { [weak shell, weak stream] in
                guard let stream else { return }
                shell?.streamTimerFired(stream)
            }
        }
        stream.timer?.restart(after: max(.milliseconds(1), due - .now))
    }

    func streamTimerFired(_ stream: HTTP2Stream) {
        guard !stream.isFinished, streams[stream.id] === stream else { return }
        if let error = stream.expired(now: .now) {
            fail(stream, error, resetCode: 0x8)
        } else {
            armTimer(of: stream)
        }
    }

    private func setIdleTimer(_ timer: HTTP2ConnectionStateMachine.IdleTimer) {
        switch timer {
        case .stopped:
            idleTimer?.stop()
        case .ping(let after), .awaitAcknowledgement(let after):
            if idleTimer == nil {
                idleTimer = try? LoopTimer(on: loop)
                // Through `self`: the first idle timer is armed before the actor is (`shell` is nil then).
                idleTimer?.setAction { [weak self] in self?.shell?.idleTimerFired() }
            }
            idleTimer?.restart(after: after)
        }
    }

    func idleTimerFired() {
        guard closedWith == nil else { return }
        switch rules.idleTimerFired() {
        case .sendPing(let next):
            session.ping()
            setIdleTimer(next)
            settle()
        case .close:
            close(HTTPClientError(.connectionClosed, "the server did not acknowledge a PING within \(rules.limits.pingTimeout)"))
        }
    }

    // MARK: Finishing streams

    private func requestSent(_ stream: HTTP2Stream) {
        stream.requestSent = true
        stream.timing.requestWritten = .now - stream.start
        if let bound = stream.bounds.responseHead { stream.headDue = .now + bound }
    }

    /// The response is complete: the caller gets it (a streamed body its end).
    private func complete(_ stream: HTTP2Stream) {
        guard !stream.isFinished, let head = stream.head else { return }
        do throws(HTTPClientError) {
            try stream.inflater?.finish()
        } catch {
            fail(stream, error, resetCode: nil)
            return
        }
        stream.isFinished = true
        completedStreams += 1
        recycleTimer(of: stream)
        stream.timing.total = .now - stream.start
        if let buffer = stream.bodyBuffer {
            let trailers = stream.trailers
            buffer.assumeIsolated { $0.finish(nil, trailers: trailers) }
        } else {
            stream.response.resume(with: .success(HTTP1Connection.Response(
                head: head, body: stream.body, stream: nil, timing: stream.timing, version: .http2, trailers: stream.trailers)))
        }
        // The server answered before the body was all sent: it wants no more of it.
        if let upload = stream.upload, !upload.isFinished {
            session.reset(stream.id, code: 0)
            upload.drained.take()?.resume(with: .success(()))
        }
    }

    private func finish(_ stream: HTTP2Stream, failing error: HTTPClientError) {
        guard !stream.isFinished else { return }
        stream.isFinished = true
        stream.failure = error
        recycleTimer(of: stream)
        let error = error.url == nil ? error.at(stream.request.url) : error
        stream.response.resume(with: .failure(error))
        stream.bodyBuffer?.assumeIsolated { $0.finish(error) }
        stream.upload?.drained.take()?.resume(with: .failure(error))
    }

    private func recycleTimer(of stream: HTTP2Stream) {
        guard let timer = stream.timer.take() else { return }
        timer.stop()
        timer.setAction {}
        if closedWith == nil, spareTimers.count < 64 { spareTimers.append(timer) } else { timer.close() }
    }

    private func endError() -> HTTPClientError {
        if let goAway {
            var error = HTTPClientError(.http2, "the server went away (GOAWAY \(NGHTTP2Session.name(ofErrorCode: goAway.code))"
                                        + (goAway.debug.isEmpty ? ")" : ": \(goAway.debug))"))
            error.http2ErrorCode = goAway.code
            return error
        }
        return HTTPClientError(.connectionClosed, sessionMessage.map { "the HTTP/2 session ended: \($0)" }
                               ?? "the server closed the HTTP/2 connection")
    }

    private func detailed(_ error: HTTPClientError) -> HTTPClientError {
        guard let sessionMessage else { return error }
        var detailed = HTTPClientError(error.kind, [error.detail, sessionMessage].compactMap { $0 }.joined(separator: ": "),
                                       url: error.url, transport: error.transport)
        detailed.http2ErrorCode = error.http2ErrorCode
        return detailed
    }

    // MARK: NGHTTP2SessionDelegate

    func session(header name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer, stream id: Int32) -> Bool {
        guard let stream = streams[id], !stream.isFinished else { return true }
        stream.sawResponseBytes = true
        stream.lastActivity = .now
        // RFC 9113 §6.5.2's measure of a header list: each field's name and value, plus 32.
        stream.headerBytes += name.count + value.count + 32
        if stream.headerBytes > maxHeaderBytes {
            stream.failure = HTTPClientError(.headersTooLarge, "over \(maxHeaderBytes) bytes of header fields")
            finish(stream, failing: stream.failure!)
            return false
        }
        if name.elementsEqual(":status".utf8) {
            stream.status = Int(String(decoding: value, as: UTF8.self))
            return stream.status != nil
        }
        stream.fields.add(name: String(decoding: name, as: UTF8.self), value: String(decoding: value, as: UTF8.self))
        return true
    }

    func session(headersEndedOn id: Int32, endStream: Bool) {
        guard let stream = streams[id], !stream.isFinished else { return }
        let fields = stream.fields
        stream.fields = HTTPHeaders()
        stream.headerBytes = 0
        if let status = stream.status.take() {
            if (100..<200).contains(status) {
                stream.interimResponses += 1
                if stream.interimResponses > stream.bounds.maxInterimResponses {
                    fail(stream, HTTPClientError(.malformedResponse, "more than \(stream.bounds.maxInterimResponses) interim responses"),
                         resetCode: 0x1)
                }
                return
            }
            received(head: status, fields, on: stream)
            if endStream { complete(stream) }
        } else if stream.head != nil {
            stream.trailers = TrailerFields.kept(fields)
            if endStream { complete(stream) }
        } else {
            fail(stream, HTTPClientError(.malformedResponse, "a response header block without :status"), resetCode: 0x1)
        }
    }

    private func received(head status: Int, _ fields: HTTPHeaders, on stream: HTTP2Stream) {
        var head = HTTP1Head()
        head.status = status
        head.version = (2, 0)
        head.headers = fields
        head.contentLength = fields.first(name: "content-length").flatMap { Int($0) }
        head.hasNoBody = stream.request.method == "HEAD" || status == 204 || status == 304
        stream.head = head
        if stream.timing.firstByte == .zero { stream.timing.firstByte = .now - stream.start }
        armTimer(of: stream)
        if let limit = stream.collectLimit, let length = head.contentLength, length > limit, !head.hasNoBody {
            fail(stream, HTTPClientError(.bodyTooLarge, "Content-Length \(length) is over the limit of \(limit) bytes"), resetCode: 0x8)
            return
        }
        if !head.hasNoBody {
            if case .collect(_, let limits?, _) = stream.mode, RedirectPolicy.location(of: head) == nil,
               let coding = Inflater.coding(of: head.headers) {
                do throws(HTTPClientError) {
                    stream.inflater = try Inflater(encoding: coding, limits: limits)
                } catch {
                    fail(stream, error, resetCode: 0x8)
                    return
                }
            } else if case .collect = stream.mode, let length = head.contentLength {
                stream.body.reserveCapacity(length)
            }
        }
        if let buffer = stream.bodyBuffer {
            let lifetime = HTTPResponseBody.Lifetime { [weak shell, stream] in
                guard let shell else { return }
                try? shell.loop.execute { shell.assumeIsolated { $0.core.bodyAbandoned(stream) } }
            }
            stream.response.resume(with: .success(HTTP1Connection.Response(
                head: head, body: .bytes([]), stream: HTTPResponseBody(buffer: buffer, lifetime: lifetime),
                timing: stream.timing, version: .http2)))
        }
    }

    /// Every copy of a streamed body was dropped before its end: the stream is reset.
    func bodyAbandoned(_ stream: HTTP2Stream) {
        fail(stream, HTTPClientError(.cancelled, "the response body was dropped"), resetCode: 0x8)
    }

    func session(data: UnsafeRawBufferPointer, stream id: Int32) {
        connectionConsumed += data.count
        guard let stream = streams[id], !stream.isFinished else { return }
        stream.sawResponseBytes = true
        stream.lastActivity = .now
        stream.received += data.count
        if let limit = stream.collectLimit, stream.received > limit {
            fail(stream, HTTPClientError(.bodyTooLarge, "more than \(limit) bytes"), resetCode: 0x8)
            return
        }
        if let buffer = stream.bodyBuffer {
            nonisolated(unsafe) let part = data
            buffer.assumeIsolated { $0.push(part) }
            if stream.consumerReading { streamsConsumed.append((id, data.count)) } else { stream.unconsumed += data.count }
        } else {
            if let inflater = stream.inflater {
                do throws(HTTPClientError) {
                    _ = try inflater.inflate(data, into: &stream.body)
                } catch {
                    fail(stream, error, resetCode: 0x8)
                    return
                }
            } else {
                stream.body.append(data)
            }
            streamsConsumed.append((id, data.count))
        }
        stream.request.downloadProgress?(stream.received, stream.head?.contentLength)
    }

    func session(dataEndedOn id: Int32) {
        guard let stream = streams[id] else { return }
        complete(stream)
    }

    func session(streamClosed id: Int32, errorCode: UInt32) {
        guard let stream = streams.removeValue(forKey: id) else { return }
        if !stream.isFinished {
            let error: HTTPClientError
            if let failure = stream.failure {
                error = failure
            } else if errorCode != 0 {
                var reset = HTTPClientError(.http2, "the server reset the stream (\(NGHTTP2Session.name(ofErrorCode: errorCode)))")
                reset.http2ErrorCode = errorCode
                // REFUSED_STREAM (also how nghttp2 closes streams a GOAWAY left out): never processed, safe to send again.
                reset.mayRetryOnNewConnection = errorCode == 0x7 && !stream.sawResponseBytes
                error = reset
            } else {
                error = HTTPClientError(.connectionClosed, "the stream ended before the response was complete")
            }
            finish(stream, failing: error)
        }
        recycleTimer(of: stream)
        report(.streamEnded)
        switch rules.streamClosed() {
        case .none: break
        case .idle(let timer): setIdleTimer(timer)
        case .close: pendingClose = pendingClose ?? endError()
        }
    }

    func session(goAwayWithLastStream lastStream: Int32, errorCode: UInt32, debug: String) {
        goAway = (lastStream, errorCode, debug)
        let after = rules.goAwayReceived()
        report(.draining)
        if after == .close { pendingClose = pendingClose ?? endError() }
    }

    func session(settingsWithMaxConcurrentStreams max: Int?) {
        _ = rules.settingsReceived(maxConcurrentStreams: max)  // reported by `settle`, after the whole read
    }

    func sessionReceivedPingAcknowledgement() {
        setIdleTimer(rules.pingAcknowledged())
    }

    func sessionReceivedControlFrame() -> Bool {
        if rules.controlFrameReceived(now: .now) { return true }
        var flood = HTTPClientError(.http2, "the server sent more than \(rules.limits.maxControlFrames) PING, SETTINGS and RST_STREAM frames within \(rules.limits.controlFrameWindow)")
        flood.http2ErrorCode = 0xb
        pendingClose = pendingClose ?? flood
        return false
    }

    func session(readBodyOf id: Int32, into buffer: UnsafeMutableRawBufferPointer) -> NGHTTP2Session.BodyRead {
        guard let stream = streams[id], let upload = stream.upload, !stream.isFinished else { return .bytes(0, last: true) }
        guard let read = upload.read(into: buffer) else { return .deferred }
        stream.lastActivity = .now
        if read.count > 0 { stream.request.uploadProgress?(upload.sent, stream.request.bodyLength) }
        if read.last {
            requestSent(stream)
            armTimer(of: stream)
        }
        return .bytes(read.count, last: read.last)
    }

    func session(error message: String) {
        sessionMessage = message
    }

    func session(invalidFrameOn id: Int32, reason: String) {
        guard let stream = streams[id], !stream.isFinished, stream.failure == nil else { return }
        var malformed = HTTPClientError(.http2, "the server sent a malformed response (\(reason))")
        malformed.http2ErrorCode = 0x1
        stream.failure = malformed
    }
}
