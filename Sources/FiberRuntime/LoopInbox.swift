/// The cross-thread inbox of one event loop, as a pure value: what the loop
/// must do when a job arrives (wake up or not), and which jobs a drain takes.
///
/// Lifecycle: `open` → `draining` (shutdown started: jobs still run, no new
/// handles) → `closed` (the loop thread is gone: jobs go to the fallback queue).
/// The loop keeps this value inside a `Mutex`; every method is O(1) and does
/// no I/O, so the lock is held for a few instructions.
struct LoopInbox<Job> {
    enum State: Equatable { case open, draining, closed }

    /// What the caller of `push` must do after releasing the lock.
    enum PushAction: Equatable {
        /// Signal the loop (`uv_async_send`): it may be blocked in poll.
        case wakeLoop
        /// The loop already has a wake-up pending, or the caller is the loop.
        case none
        /// The loop thread has exited: run the job on the fallback queue.
        case runOnFallback
    }

    private(set) var state: State = .open
    private var jobs: [Job] = []
    private var wakeupPending = false

    var isEmpty: Bool { jobs.isEmpty }
    var count: Int { jobs.count }

    /// Appends a job. `fromLoop` is true when the loop thread itself pushes,
    /// which never needs a wake-up signal (the loop's idle handle runs it).
    mutating func push(_ job: Job, fromLoop: Bool) -> PushAction {
        if state == .closed { return .runOnFallback }
        jobs.append(job)
        if fromLoop || wakeupPending { return .none }
        wakeupPending = true
        return .wakeLoop
    }

    /// Hands every queued job to the loop by swapping with `spare` (an empty
    /// array with capacity), so steady-state draining allocates nothing.
    mutating func takeAll(into spare: inout [Job]) {
        wakeupPending = false
        swap(&jobs, &spare)
    }

    mutating func beginDraining() { if state == .open { state = .draining } }

    /// Marks the loop closed and returns jobs that arrived too late to run on it.
    mutating func close() -> [Job] {
        state = .closed
        defer { jobs = [] }
        return jobs
    }
}
