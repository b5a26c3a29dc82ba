import FiberRuntime

/// A client's requests in flight and its shutdown: the shell that performs
/// `DrainStateMachine`'s decisions.
///
/// Each request takes the lock twice, to be admitted and counted (`enter`)
/// and when it ends (`leave`): the lock also keeps the request's task, which
/// is what lets a shutdown cancel it once the grace period is over. Nothing is
/// allocated per request once the slots have grown to the peak concurrency.
final class RequestDrain: Sendable {
    /// A caller of `drain`, between the machine's decision to wait and its continuation.
    private enum Waiter {
        case registered
        case waiting(CheckedContinuation<Void, Never>)
        case finished
    }

    private struct State {
        var machine = DrainStateMachine()
        var tasks = TaskSlots()
        var waiters: [DrainStateMachine.WaiterID: Waiter] = [:]
        var nextWaiter = 0
    }

    // Locked's value is only touched under its lock; the tasks it keeps are
    // removed by their own request before it returns (`leave`), so a task is
    // never cancelled after it ended.
    private let state = Locked(State())

    init() {}

    /// Admits a request of the current task, or refuses it when shutting down.
    ///
    /// - Returns: the slot to give back to `leave(_:)`.
    /// - Throws: `FiberError.networkError` with a `ShutdownError` for `url` once a shutdown began.
    func enter(url: @autoclosure () -> String) throws(FiberError) -> Int {
        let slot: Int? = withUnsafeCurrentTask { task in
            state.withLock { state in
                guard state.machine.requestArrived() == .admit else { return nil }
                return state.tasks.insert(task)
            }
        }
        guard let slot else { throw .networkError(underlying: ShutdownError(url: url())) }
        return slot
    }

    /// Ends the request admitted in `slot`; the last one during a shutdown lets its callers go on.
    func leave(_ slot: Int) {
        let resumed = state.withLock { state in
            state.tasks.remove(at: slot)
            return state.machine.requestFinished().compactMap { waiter -> CheckedContinuation<Void, Never>? in
                guard case .waiting(let continuation) = state.waiters[waiter] else {
                    state.waiters[waiter] = .finished
                    return nil
                }
                state.waiters[waiter] = nil
                return continuation
            }
        }
        for waiter in resumed { waiter.resume() }
    }

    /// Requests admitted and not yet ended.
    var inFlightCount: Int { state.withLock { $0.machine.inFlight } }

    /// True once a shutdown began: new requests are refused.
    var isShuttingDown: Bool { state.withLock { $0.machine.phase != .open } }

    /// Refuses new requests from now on, without waiting for those in flight.
    func refuseNewRequests() {
        state.withLock { $0.machine.shutdownBegan() }
    }

    /// Refuses new requests from now on and waits for those in flight; past
    /// `gracePeriod`, or when the calling task is cancelled, cancels them and
    /// waits for them to end.
    ///
    /// - Returns: whether it had to cancel requests.
    func drain(gracePeriod: Duration) async -> Bool {
        guard let waiter = beginShutdown() else { return false }
        let cancelled = Locked(false)
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                // Cancelled by the group once the requests ended.
                guard (try? await Task.sleep(for: gracePeriod)) != nil else { return }
                if self.gracePeriodEnded() { cancelled.withLock { $0 = true } }
            }
            await withTaskCancellationHandler {
                await wait(for: waiter)
            } onCancel: {
                if self.gracePeriodEnded() { cancelled.withLock { $0 = true } }
            }
            group.cancelAll()
        }
        return cancelled.withLock { $0 }
    }

    /// Starts draining (if no one did) and returns the waiter to wait with,
    /// or nil when nothing is in flight.
    private func beginShutdown() -> DrainStateMachine.WaiterID? {
        state.withLock { state in
            let waiter = state.nextWaiter
            state.nextWaiter += 1
            guard state.machine.shutdownRequested(by: waiter) == .wait else { return nil }
            state.waiters[waiter] = .registered
            return waiter
        }
    }

    private func wait(for waiter: DrainStateMachine.WaiterID) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let finished = state.withLock { state in
                guard case .registered = state.waiters[waiter] else {
                    state.waiters[waiter] = nil
                    return true
                }
                state.waiters[waiter] = .waiting(continuation)
                return false
            }
            if finished { continuation.resume() }
        }
    }

    /// Cancels what is in flight, if the machine says so. Returns true if it did.
    private func gracePeriodEnded() -> Bool {
        // The tasks are cancelled under the lock: a slot given back meanwhile
        // would let its task end. Their cancellation handlers run here and must
        // not call back into this drain (the transport's only resume continuations).
        state.withLock { state in
            guard state.machine.gracePeriodEnded() == .cancelInFlight else { return false }
            state.tasks.cancelAll()
            return true
        }
    }
}
