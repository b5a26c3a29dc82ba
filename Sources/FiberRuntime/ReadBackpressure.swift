/// When a stream should stop and resume reading from its socket: a pure
/// high/low watermark rule over the bytes read but not yet consumed.
///
/// Reading stops once `buffered` reaches `highWatermark` and resumes once the
/// consumer brings it down to `lowWatermark`, so a slow consumer holds at most
/// about one watermark plus one read (64 KiB) in memory. `BackpressuredBuffer`
/// follows it over the sizes its producer gives (a socket's reads, a streamed
/// body, a WebSocket's events).
///
/// (`@usableFromInline`: `BackpressuredBuffer`'s inlinable members call it.)
@usableFromInline
struct ReadBackpressure: Equatable {
    @usableFromInline
    enum Action: Equatable { case none, stopReading, startReading }

    let lowWatermark: Int
    let highWatermark: Int
    @usableFromInline private(set) var buffered = 0
    /// Whether the producer should be reading: false from the high watermark
    /// until the low one, and for good once finished.
    @usableFromInline private(set) var isReading = true
    private var isFinished = false

    /// A pair of watermarks works when 0 <= low < high. Configurations that
    /// reach a stream are checked with this when their client is made
    /// (`HTTPClient.Configuration.validate()`), so the precondition below
    /// guards only the runtime's own callers.
    static func accepts(lowWatermark: Int, highWatermark: Int) -> Bool {
        0 <= lowWatermark && lowWatermark < highWatermark
    }

    @usableFromInline
    init(lowWatermark: Int, highWatermark: Int) {
        precondition(Self.accepts(lowWatermark: lowWatermark, highWatermark: highWatermark), "need 0 <= low < high")
        self.lowWatermark = lowWatermark
        self.highWatermark = highWatermark
    }

    /// `count` bytes arrived and were buffered for the consumer.
    @usableFromInline
    mutating func received(_ count: Int) -> Action {
        buffered += count
        guard isReading, buffered >= highWatermark else { return .none }
        isReading = false
        return .stopReading
    }

    /// The consumer took `count` buffered bytes.
    @usableFromInline
    mutating func consumed(_ count: Int) -> Action {
        buffered = max(0, buffered - count)
        guard !isReading, !isFinished, buffered <= lowWatermark else { return .none }
        isReading = true
        return .startReading
    }

    /// The stream ended (EOF, error or close): never ask to read again.
    /// Bytes already buffered stay counted until consumed.
    @usableFromInline
    mutating func finished() {
        isReading = false
        isFinished = true
    }
}
