import Synchronization

/// One download of a `FiberDownloader`: await its `value`, or `pause()` it for a
/// resume state, or `cancel()` it.
public final class DownloadTask: Sendable {
    private struct Control {
        var task: Task<DownloadedFile, any Error>?
        var pausing = false
        var cancelled = false
        var state: DownloadResumeState
        var pauseWaiters: [CheckedContinuation<DownloadResumeState, Never>] = []
        var stopped: DownloadResumeState?
    }

    private let control: Mutex<Control>

    init(state: DownloadResumeState) {
        control = Mutex(Control(state: state))
    }

    func start(_ task: Task<DownloadedFile, any Error>) {
        let cancelled = control.withLock { c in
            c.task = task
            return c.cancelled
        }
        if cancelled { task.cancel() }
    }

    /// The file once it is whole, verified and in place.
    ///
    /// - Throws: `FiberError`: `.cancelled` once cancelled or paused; `.httpError` for a
    ///   status that is not a file; `.networkError` with a `TransferFailure` (`.destination`, `.checksumMismatch`,
    ///   `.malformedResponse`); what the request throws (`.networkError`, `.timeout`, …).
    public var value: DownloadedFile {
        get async throws {
            guard let task = control.withLock({ $0.task }) else { throw FiberError.cancelled }
            return try await task.value
        }
    }

    /// Where the download stands now (its bytes on disk grow as it runs).
    public var resumeState: DownloadResumeState { control.withLock { $0.state } }

    /// Stops the download and keeps what it wrote: the partial file stays beside the
    /// destination, and the state returned resumes it (`FiberDownloader.resume`).
    /// `value` then throws `.cancelled`. A download already over returns its last state.
    public func pause() async -> DownloadResumeState {
        await withCheckedContinuation { continuation in
            let (task, stopped) = control.withLock { c -> (Task<DownloadedFile, any Error>?, DownloadResumeState?) in
                if let stopped = c.stopped { return (nil, stopped) }
                c.pausing = true
                c.pauseWaiters.append(continuation)
                return (c.task, nil)
            }
            if let stopped { continuation.resume(returning: stopped) }
            task?.cancel()
        }
    }

    /// Stops the download and removes its partial file; `value` throws `.cancelled`.
    public func cancel() {
        let task = control.withLock { c in
            c.cancelled = true
            return c.task
        }
        task?.cancel()
    }

    // MARK: For the download's own task

    var isPausing: Bool { control.withLock { $0.pausing } }

    func update(_ change: (inout DownloadResumeState) -> Void) {
        control.withLock { change(&$0.state) }
    }

    /// The download's task is over: hands the last state to anyone waiting in `pause()`.
    func stopped() {
        let (waiters, state) = control.withLock { c in
            c.stopped = c.state
            defer { c.pauseWaiters = [] }
            return (c.pauseWaiters, c.state)
        }
        for waiter in waiters { waiter.resume(returning: state) }
    }
}
