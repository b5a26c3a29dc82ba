import CLibUV

/// A libuv timer on one loop, confined to that loop's thread.
final class LoopTimer {
    private let handle: UVHandle

    /// Creates a stopped timer. Call on the loop thread.
    /// - Throws: `TransportError` `.eventLoopShutdown` once the loop is shutting down.
    init(on loop: EventLoop) throws(TransportError) {
        handle = try UVHandle.make(UV_TIMER, on: loop, operation: "timer") { uv_timer_init(loop.uvLoop, $0.timer) }
    }

    /// Fires `action` once after `delay` (rounded up to whole milliseconds), replacing any earlier start.
    func start(after delay: Duration, _ action: @escaping () -> Void) {
        guard !handle.isClosing else { return }
        handle.onTimer = action
        uv_timer_start(handle.timer, UVHandle.timerCallback, Self.milliseconds(delay), 0)
    }

    func stop() {
        guard !handle.isClosing else { return }
        uv_timer_stop(handle.timer)
    }

    /// Sets what the timer does when it fires, for `restart(after:)`.
    func setAction(_ action: @escaping () -> Void) { handle.onTimer = action }

    /// (Re)starts the timer with the action already set: no allocation, for timers re-armed on every read.
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

    static func milliseconds(_ d: Duration) -> UInt64 {
        let (seconds, attoseconds) = d.components
        guard seconds >= 0 else { return 0 }
        let ms = UInt64(seconds) * 1000 + UInt64((attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000)
        return ms
    }
}
