/// The connection-racing rules of Happy Eyeballs (RFC 8305) as a pure value.
///
/// Addresses are tried in order (see `interleave`); each attempt gets
/// `attemptDelay` (250 ms) to connect before the next one starts beside it,
/// and a failure starts the next one at once. The first attempt to connect
/// wins and the others are closed. The overall connect timeout is an event
/// too. The connector performs the returned actions; it never decides.
struct HappyEyeballs: Equatable {
    enum Action: Equatable {
        /// Open a socket and connect it to address number `n`.
        case startAttempt(Int)
        /// (Re)start the timer that fires `delayElapsed` after the attempt delay.
        case armDelay
        /// Stop the attempt-delay timer.
        case disarmDelay
        /// Close the socket of attempt `n`, which lost or is no longer wanted.
        case closeAttempt(Int)
        /// Attempt `n` connected: hand its socket to the caller.
        case succeed(Int)
        /// Every address failed: report the failures.
        case failAll
        /// The connect timeout passed.
        case failTimeout
    }

    private enum State: Equatable { case idle, connecting, done }

    let addressCount: Int
    private var state = State.idle
    private var next = 0
    private(set) var inFlight: [Int] = []

    init(addressCount: Int) { self.addressCount = addressCount }

    var isDone: Bool { state == .done }

    mutating func start() -> [Action] {
        guard state == .idle else { return [] }
        guard addressCount > 0 else {
            state = .done
            return [.failAll]
        }
        state = .connecting
        return startNext()
    }

    /// The attempt delay passed with no connection yet.
    mutating func delayElapsed() -> [Action] {
        guard state == .connecting, next < addressCount else { return [] }
        return startNext()
    }

    mutating func attemptFailed(_ attempt: Int) -> [Action] {
        guard state == .connecting, let i = inFlight.firstIndex(of: attempt) else { return [] }
        inFlight.remove(at: i)
        if next < addressCount { return [.disarmDelay] + startNext() }
        if inFlight.isEmpty {
            state = .done
            return [.disarmDelay, .failAll]
        }
        return []
    }

    mutating func attemptSucceeded(_ attempt: Int) -> [Action] {
        guard state == .connecting, inFlight.contains(attempt) else { return [] }
        state = .done
        let losers = inFlight.filter { $0 != attempt }
        inFlight = []
        return [.disarmDelay] + losers.map(Action.closeAttempt) + [.succeed(attempt)]
    }

    mutating func timedOut() -> [Action] { finishEarly(with: .failTimeout) }

    /// The caller gave up (task cancelled): close everything, report nothing.
    mutating func cancelled() -> [Action] { finishEarly(with: nil) }

    private mutating func finishEarly(with final: Action?) -> [Action] {
        guard state != .done else { return [] }
        state = .done
        let open = inFlight
        inFlight = []
        return [.disarmDelay] + open.map(Action.closeAttempt) + (final.map { [$0] } ?? [])
    }

    private mutating func startNext() -> [Action] {
        let attempt = next
        next += 1
        inFlight.append(attempt)
        return next < addressCount ? [.startAttempt(attempt), .armDelay] : [.startAttempt(attempt)]
    }

    /// Orders addresses as RFC 8305 §4 asks: alternate families, starting with
    /// the family of the first address the resolver returned.
    static func interleave(_ addresses: [SocketAddress]) -> [SocketAddress] {
        guard let first = addresses.first else { return [] }
        let preferred = addresses.filter { $0.family == first.family }
        let other = addresses.filter { $0.family != first.family }
        var ordered: [SocketAddress] = []
        ordered.reserveCapacity(addresses.count)
        for i in 0..<max(preferred.count, other.count) {
            if i < preferred.count { ordered.append(preferred[i]) }
            if i < other.count { ordered.append(other[i]) }
        }
        return ordered
    }
}
