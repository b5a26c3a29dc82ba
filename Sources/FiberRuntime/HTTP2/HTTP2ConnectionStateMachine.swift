/// The decisions of one HTTP/2 connection that nghttp2 leaves to its user, as
/// a pure value: how many streams the pool may lease on it, what a GOAWAY
/// means for it, when the server sends too many control frames, and when an
/// idle connection sends a PING or gives up on its acknowledgement.
/// Framing, HPACK, flow control and each stream's state are nghttp2's;
/// `HTTP2Connection` feeds this machine what happens and performs its answers.
struct HTTP2ConnectionStateMachine {
    struct Limits: Equatable {
        var maxConcurrentStreams = 1000
        var maxControlFrames = 1000
        var controlFrameWindow: Duration = .seconds(10)
        var pingInterval: Duration? = .seconds(30)
        var pingTimeout: Duration = .seconds(10)
    }

    enum Phase: Equatable {
        /// Takes new streams up to its capacity.
        case active
        /// The server sent GOAWAY, or the client is closing it: streams in
        /// flight finish, no new one starts.
        case draining
        case closed
    }

    /// What the idle timer should do.
    enum IdleTimer: Equatable {
        case stopped
        /// Send a PING when this much time has passed.
        case ping(after: Duration)
        /// A PING is out: close if no acknowledgement comes within this.
        case awaitAcknowledgement(within: Duration)
    }

    let limits: Limits
    private(set) var phase = Phase.active
    /// What the server allows: nil until its first SETTINGS, and when they set no limit.
    private(set) var remoteMaxConcurrentStreams: Int?
    /// Until the server's first SETTINGS, one stream only: its limit is not
    /// known yet, and streams past it would be refused (the first request need
    /// not wait for them, the others do, for about a round trip at most).
    private(set) var sawSettings = false
    private(set) var openStreams = 0
    private var controlFrames = 0
    private var controlWindowStart: ContinuousClock.Instant?
    private var pingOutstanding = false

    init(limits: Limits) {
        self.limits = limits
    }

    /// Streams the pool may have leased on this connection at once.
    var capacity: Int {
        guard phase == .active else { return 0 }
        guard sawSettings else { return 1 }
        return min(limits.maxConcurrentStreams, remoteMaxConcurrentStreams ?? .max)
    }

    // MARK: Frames from the server

    /// The server's SETTINGS: the new capacity when it changed.
    mutating func settingsReceived(maxConcurrentStreams: Int?) -> Int? {
        let before = capacity
        if let maxConcurrentStreams { remoteMaxConcurrentStreams = maxConcurrentStreams }
        sawSettings = true
        return capacity == before ? nil : capacity
    }

    /// What a GOAWAY leaves: the connection drains, and closes at once when no
    /// stream is left (nghttp2 refuses the streams above the last stream ID
    /// itself, which makes them safe to send again on another connection).
    enum AfterGoAway: Equatable { case drain, close }

    mutating func goAwayReceived() -> AfterGoAway {
        guard phase != .closed else { return .close }
        phase = .draining
        return openStreams == 0 ? .close : .drain
    }

    /// A PING, SETTINGS or RST_STREAM frame arrived: false when it is one too
    /// many for the window, and the connection must close.
    mutating func controlFrameReceived(now: ContinuousClock.Instant) -> Bool {
        if let start = controlWindowStart, now - start < limits.controlFrameWindow {
            controlFrames += 1
        } else {
            controlWindowStart = now
            controlFrames = 1
        }
        return controlFrames <= limits.maxControlFrames
    }

    // MARK: Streams

    /// A request was given a stream; the idle timer stops (an outstanding PING still times out).
    mutating func streamOpened() -> IdleTimer? {
        openStreams += 1
        return openStreams == 1 && !pingOutstanding ? .stopped : nil
    }

    /// What follows the end of a stream.
    enum AfterStream: Equatable {
        case none
        /// The last stream ended on an active connection: start the idle timer.
        case idle(IdleTimer)
        /// The last stream ended on a draining connection: close it.
        case close
    }

    mutating func streamClosed() -> AfterStream {
        openStreams = max(0, openStreams - 1)
        guard openStreams == 0 else { return .none }
        switch phase {
        case .active: return pingOutstanding ? .none : .idle(limits.pingInterval.map { .ping(after: $0) } ?? .stopped)
        case .draining: return .close
        case .closed: return .none
        }
    }

    /// The client stops taking streams on this connection (its lifetime ended,
    /// or the pool is shutting down): `.close` when none is open.
    mutating func drain() -> AfterGoAway {
        if phase == .active { phase = .draining }
        return openStreams == 0 ? .close : .drain
    }

    mutating func closed() {
        phase = .closed
    }

    // MARK: Liveness

    /// The idle timer fired: send a PING, or, when one is out already, the
    /// server has not answered it in time and the connection is dead.
    enum IdleAction: Equatable {
        case sendPing(IdleTimer)
        case close
    }

    mutating func idleTimerFired() -> IdleAction {
        if pingOutstanding { return .close }
        pingOutstanding = true
        return .sendPing(.awaitAcknowledgement(within: limits.pingTimeout))
    }

    /// The server acknowledged the PING: the timer starts over while the connection is idle.
    mutating func pingAcknowledged() -> IdleTimer {
        pingOutstanding = false
        guard phase == .active, openStreams == 0, let interval = limits.pingInterval else { return .stopped }
        return .ping(after: interval)
    }
}
