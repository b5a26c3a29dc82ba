/// One request and its response on an HTTP/2 connection: what the caller
/// awaits and what the connection gathers for it as frames arrive.
final class HTTP2Stream: @unchecked Sendable {
    // @unchecked: only its connection touches it, on the connection's loop
    // (the task that feeds a streamed upload runs isolated to that connection).
    let request: PreparedRequest
    let mode: HTTP1Connection.BodyMode
    let bounds: ExchangeBounds
    let start: ContinuousClock.Instant
    let response = OnceContinuation<HTTP1Connection.Response>()
    var id: Int32 = 0
    var timing: RequestTiming

    // Receiving
    var status: Int?
    var fields = HTTPHeaders()
    var headerBytes = 0
    var interimResponses = 0
    var head: HTTP1Head?
    var trailers: HTTPHeaders?
    var body: CollectedBody
    var bodyBuffer: ResponseBodyBuffer?
    var inflater: Inflater?
    var received = 0
    /// Whether the consumer of a streamed body is reading: while not, the
    /// stream's window is not given back and the server stops at its end.
    var consumerReading = true
    /// Bytes read off the wire but not yet given back to the stream's window.
    var unconsumed = 0
    var sawResponseBytes = false
    /// The response ended, or the stream failed: the caller has its answer.
    var isFinished = false
    /// Set by a check of the client's before the stream closes: what the caller is told.
    var failure: HTTPClientError?

    // Sending
    var upload: HTTP2Upload?
    var requestSent = false

    // Time bounds
    var lastActivity: ContinuousClock.Instant
    var headDue: ContinuousClock.Instant?
    var timer: LoopTimer?

    init(request: PreparedRequest, mode: HTTP1Connection.BodyMode, bounds: ExchangeBounds,
         start: ContinuousClock.Instant, timing: RequestTiming) {
        self.request = request
        self.mode = mode
        self.bounds = bounds
        self.start = start
        self.timing = timing
        self.lastActivity = .now
        self.body = if case .collect(_, _, let form) = mode { CollectedBody(form) } else { .bytes([]) }
    }

    /// The limit on a collected body, nil when streaming.
    var collectLimit: Int? {
        if case .collect(let max, _, _) = mode { max } else { nil }
    }

    /// The earliest instant one of the stream's bounds can run out.
    func nextDue() -> ContinuousClock.Instant? {
        var due = bounds.deadline
        if head == nil, let headDue { due = min(due ?? headDue, headDue) }
        if let idle = bounds.readIdle, consumerReading, !isFinished { due = min(due ?? lastActivity + idle, lastActivity + idle) }
        return due
    }

    /// The bound that ran out at `now`, if one did.
    func expired(now: ContinuousClock.Instant) -> HTTPClientError? {
        if let deadline = bounds.deadline, now >= deadline { return HTTPClientError(.deadlineExceeded, "during the exchange") }
        if head == nil, let headDue, now >= headDue {
            return HTTPClientError(.responseHeadTimeout, "no response head \(bounds.responseHead.map { "within \($0)" } ?? "in time")")
        }
        if let idle = bounds.readIdle, consumerReading, now - lastActivity >= idle {
            return HTTPClientError(.readTimeout, "no data for \(idle)")
        }
        return nil
    }
}

/// The body bytes of a request waiting for the peer's window: all of a body in
/// memory at once, or a streamed body's chunks as its producer hands them over.
final class HTTP2Upload: @unchecked Sendable {
    // @unchecked: touched only on the connection's loop, as its stream is.
    private var chunks: [[UInt8]] = []
    private var offset = 0
    private(set) var buffered = 0
    private(set) var sent = 0
    private var ended = false
    /// The producer waiting for the queue to go down.
    var drained: OnceContinuation<Void>?
    /// A streamed body's producer stops handing chunks over at this much queued.
    static let highWatermark = 256 * 1024

    init() {}

    init(whole bytes: [UInt8]) {
        if !bytes.isEmpty { chunks = [bytes]; buffered = bytes.count }
        ended = true
    }

    func append(_ chunk: [UInt8]) {
        guard !chunk.isEmpty else { return }
        chunks.append(chunk)
        buffered += chunk.count
    }

    func end() { ended = true }

    var isFinished: Bool { ended && buffered == 0 }

    /// Copies what fits into `buffer`: the count, and whether the body ends with it.
    func read(into buffer: UnsafeMutableRawBufferPointer) -> (count: Int, last: Bool)? {
        var written = 0
        while written < buffer.count, let first = chunks.first {
            let n = min(buffer.count - written, first.count - offset)
            first.withUnsafeBytes { bytes in
                (buffer.baseAddress! + written).copyMemory(from: bytes.baseAddress! + offset, byteCount: n)
            }
            written += n
            offset += n
            if offset == first.count {
                chunks.removeFirst()
                offset = 0
            }
        }
        buffered -= written
        sent += written
        if buffered < Self.highWatermark / 2, let drained = drained.take() { drained.resume(with: .success(())) }
        if written == 0, !ended { return nil }
        return (written, ended && buffered == 0)
    }
}
