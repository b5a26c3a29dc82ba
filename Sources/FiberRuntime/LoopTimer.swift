import CLibUV

/// A libuv timer on one loop, confined to that loop's thread.
final class LoopTimer {
    private let handle: UVHandle
    private let uvLoop: UnsafeMutablePointer<uv_loop_t>

    /// Creates a stopped timer. Call on the loop thread.
    /// - Throws: `TransportError` `.eventLoopShutdown` once the loop is shutting down.
    init(on loop: EventLoop) throws(TransportError) {
        handle = try UVHandle.make(UV_TIMER, on: loop, operation: "timer") { uv_timer_init(loop.uvLoop, $0.timer) }
        uvLoop = loop.uvLoop
    }

    /// Fires `action` once, no sooner than `delay` from now, replacing any earlier start.
    ///
    /// libuv counts from the loop's cached time, read when the loop last woke and
    /// truncated to the millisecond, so a timer armed late in a turn could fire up
    /// to that staleness plus a millisecond early. The time is refreshed first and
    /// one millisecond added, so that a sleep never ends before it was asked to.
    func start(after delay: Duration, _ action: @escaping () -> Void) {
        guard !handle.isClosing else { return }
        handle.onTimer = action
        uv_update_time(uvLoop)
        uv_timer_start(handle.timer, UVHandle.timerCallback, Self.milliseconds(delay) + 1, 0)
    }

    func stop() {
        guard !handle.isClosing else { return }
        uv_timer_stop(handle.timer)
    }

    /// Sets what the timer does when it fires, for `restart(after:)`.
    func setAction(_ action: @escaping () -> Void) { handle.onTimer = action }

    /// (Re)starts the timer with the action already set: no allocation, for timers re-armed on every read.
    /// Counted from the loop's cached time, as libuv does (an idle timeout may fire up to a
    /// millisecond or so early; `start` is the one that never fires early).
    func restart(after delay: Duration) {
        guard !handle.isClosing else { return }
        uv_timer_start(handle.timer, UVHandle.timerCallback, Self.milliseconds(delay), 0)
    }

    /// Stops and frees the timer; safe to call twice.
    func close() { handle.close() }

    /// Called when the loop closes the timer for shutdown.
    var onClose: (() -> Void)? {
        get { handle.onClose }
        set { handle.onClose = newValue }
    }

    /// `d` in whole milliseconds, rounded up; zero for a duration at or below zero.
    static func milliseconds(_ d: Duration) -> UInt64 {
        // Checked on the whole duration: a negative one under a second has zero
        // seconds and negative attoseconds (a deadline just passed).
        guard d > .zero else { return 0 }
        let (seconds, attoseconds) = d.components
        // Saturates: a duration past what 64 bits of milliseconds hold means "never" in practice.
        let (whole, overflow) = UInt64(seconds).multipliedReportingOverflow(by: 1000)
        let (ms, carry) = whole.addingReportingOverflow(UInt64((attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000))
        return overflow || carry ? .max : ms
    }
}
