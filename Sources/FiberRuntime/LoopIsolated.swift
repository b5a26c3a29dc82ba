/// An actor whose executor is its event loop's: whatever runs on the loop
/// thread (a libuv callback, a job of the loop) is isolated to it.
protocol LoopIsolated: Actor {
    nonisolated var loop: EventLoop { get }
}

extension LoopIsolated {
    /// Runs `operation` isolated to this actor, from code already on its loop
    /// thread: `assumeIsolated` for the per-request callbacks.
    ///
    /// `assumeIsolated` allocates on every call (the context of a capturing
    /// closure, and a thunk to cast a non-escaping closure's isolation away).
    /// Here the values travel as `argument` and `operation` captures nothing, so
    /// it is already escaping at no cost and is cast as it is: nothing is
    /// allocated. Pass a closure that captures nothing. The check is the loop's
    /// thread-local, since this actor's executor is its loop's.
    @inline(__always)
    nonisolated func onLoop<Argument, Result, Failure: Error>(
        _ argument: Argument, _ operation: @escaping (isolated Self, Argument) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        loop.serialExecutor.checkIsolated()
        return try unsafeBitCast(operation, to: ((Self, Argument) throws(Failure) -> Result).self)(self, argument)
    }
}
