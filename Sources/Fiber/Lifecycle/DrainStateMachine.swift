/// The decisions of a client's graceful shutdown, without I/O: whether a
/// request may start, when the callers of `shutdown` may go on, and when the
/// requests still in flight are to be cancelled.
///
/// Lifecycle: `open` (requests are admitted and counted) → `draining` (the
/// first `shutdownBegan` or `shutdownRequested`: new requests are refused; waiters wait for the
/// count to reach zero) → `cancelling` (a grace period ended with requests in
/// flight: they are told to cancel, once; waiters still wait for them to end).
/// There is no way back: a client that shut down stays shut down.
///
/// The shell (`RequestDrain`) holds what the IDs stand for (the waiters'
/// continuations) and performs the actions.
struct DrainStateMachine: Sendable {
    /// A caller of `shutdown` waiting for the requests in flight.
    typealias WaiterID = Int

    enum Phase: Equatable, Sendable { case open, draining, cancelling }

    /// Whether a request that arrived may run.
    enum Admission: Equatable, Sendable { case admit, refuse }

    /// What to do for a caller of `shutdown`.
    enum ShutdownAction: Equatable, Sendable {
        /// Nothing is in flight: it may go on at once.
        case finished
        /// It waits until the requests in flight have ended.
        case wait
    }

    /// What to do when a grace period ends.
    enum GracePeriodAction: Equatable, Sendable {
        case none
        /// Cancel every request in flight (the first time only).
        case cancelInFlight
    }

    private(set) var phase = Phase.open
    /// Requests admitted and not yet finished.
    private(set) var inFlight = 0
    private var waiters: [WaiterID] = []

    /// A request arrived: admitted (and counted) unless the client is shutting down.
    mutating func requestArrived() -> Admission {
        guard phase == .open else { return .refuse }
        inFlight += 1
        return .admit
    }

    /// An admitted request ended (answered, failed or cancelled). Returns the
    /// waiters to resume: all of them when it was the last one during a shutdown.
    mutating func requestFinished() -> [WaiterID] {
        precondition(inFlight > 0, "a request finished that was never admitted")
        inFlight -= 1
        guard inFlight == 0, phase != .open else { return [] }
        defer { waiters = [] }
        return waiters
    }

    /// The client began to shut down: from now on nothing is admitted.
    mutating func shutdownBegan() {
        if phase == .open { phase = .draining }
    }

    /// `waiter` asked the client to shut down: from now on nothing is admitted.
    mutating func shutdownRequested(by waiter: WaiterID) -> ShutdownAction {
        shutdownBegan()
        guard inFlight > 0 else { return .finished }
        waiters.append(waiter)
        return .wait
    }

    /// A caller's grace period ended (or its task was cancelled): what is still
    /// in flight is cancelled, once.
    mutating func gracePeriodEnded() -> GracePeriodAction {
        guard phase == .draining, inFlight > 0 else { return .none }
        phase = .cancelling
        return .cancelInFlight
    }
}
