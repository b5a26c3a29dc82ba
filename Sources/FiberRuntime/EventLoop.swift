import CFiberShims
import CLibUV
import Dispatch
import Synchronization

/// One libuv loop running on a thread of its own.
///
/// The loop is a `TaskExecutor`, and `executor` is its serial executor (see
/// `EventLoop+Executor.swift`): an actor that owns a socket returns the loop's
/// `executor` as its `unownedExecutor`, so libuv callbacks and the actor's
/// state share one thread. Work from other threads arrives through one inbox (a
/// mutex-guarded array) and one `uv_async_send`; libuv merges wake-ups, and
/// the loop drains the whole inbox on each. Work pushed by the loop itself
/// starts an idle handle instead, so it runs in the same turn with no syscall.
///
/// Lifecycle: created running by `EventLoopGroup`; `EventLoopGroup.shutdown()`
/// closes every handle, runs what is still queued, and joins the thread.
/// After that, scheduling throws `EventLoopError.shutdown`.
public final class EventLoop: @unchecked Sendable {
    // @unchecked: the uv_* pointers and the `loop*` vars are touched only on
    // the loop thread (or before it starts / after it is joined); state shared
    // across threads lives in `inbox`, behind a lock.

    /// The position of this loop in its group, for names and logs.
    public let index: Int

    let uvLoop: UnsafeMutablePointer<uv_loop_t>
    private let wakeup: UnsafeMutablePointer<uv_async_t>
    private let idle: UnsafeMutablePointer<uv_idle_t>
    private let inbox = Locked(LoopInbox<LoopJob>())
    private let fallback: DispatchQueue
    private let exit = Locked<ExitState>(.running)
    private var thread: LoopThread?

    // Loop-confined state.
    private var loopSpare: [LoopJob] = []
    private var loopIdleActive = false
    /// Handles opened through `UVHandle` and not yet closed (internal handles excluded).
    var loopOpenHandles = 0
    /// Where every stream on this loop reads into (see `UVHandle.allocCallback`).
    let loopReadBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)
    /// Where TLS streams on this loop decrypt into, handed to their readers in place.
    let loopPlaintextBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)

    private enum ExitState { case running, exited, waiting(CheckedContinuation<Void, Never>) }

    enum LoopJob {
        /// A job of an actor pinned to the loop (enqueued on `executor`).
        case actorJob(UnownedJob)
        /// A job of a task that prefers the loop, in no actor's isolation.
        case taskJob(UnownedJob)
        case closure(@Sendable () -> Void)
    }

    /// The loop's serial executor: a face of its own, so that a job says by
    /// where it was enqueued whether it runs isolated to an actor or not.
    let serialExecutor = LoopSerialExecutor()
    /// An actor on `serialExecutor`, to run code isolated to the loop.
    package let isolation: LoopIsolation

    /// Jobs run per drain before the loop polls I/O again, so a task that keeps
    /// rescheduling itself cannot starve sockets and timers.
    private static let drainBudget = 4096

    init(index: Int, name: String) {
        self.index = index
        self.fallback = DispatchQueue(label: "\(name).after-shutdown")
        self.isolation = LoopIsolation(serialExecutor)
        uvLoop = .allocate(capacity: 1)
        wakeup = .allocate(capacity: 1)
        idle = .allocate(capacity: 1)
        precondition(uv_loop_init(uvLoop) == 0, "uv_loop_init failed")
        let me = Unmanaged.passUnretained(self).toOpaque()
        uvLoop.pointee.data = me
        serialExecutor.loop = self
        uv_async_init(uvLoop, wakeup) { async in
            EventLoop.from(async!.pointee.loop).drainInbox()
        }
        uv_idle_init(uvLoop, idle)
        wakeup.pointee.data = nil
        idle.pointee.data = nil
        loopSpare.reserveCapacity(64)
        thread = LoopThread(name: name) { [self] in runLoopThread() }
    }

    deinit {
        loopReadBuffer.deallocate()
        loopPlaintextBuffer.deallocate()
        uvLoop.deallocate()
        wakeup.deallocate()
        idle.deallocate()
    }

    static func from(_ loop: UnsafeMutablePointer<uv_loop_t>) -> EventLoop {
        Unmanaged<EventLoop>.fromOpaque(loop.pointee.data).takeUnretainedValue()
    }

    /// The loop whose thread is running the caller, if any.
    public static var current: EventLoop? {
        guard let p = cfiber_current_loop_get() else { return nil }
        return Unmanaged<EventLoop>.fromOpaque(p).takeUnretainedValue()
    }

    /// True when called on this loop's thread (or, after shutdown, on its fallback queue).
    public var inEventLoop: Bool {
        cfiber_current_loop_get() == Unmanaged.passUnretained(self).toOpaque()
    }

    // MARK: Submitting work

    /// Runs `work` on the loop thread, after the work queued before it.
    ///
    /// - Throws: `EventLoopError.shutdown` once the loop has been shut down.
    public func execute(_ work: @escaping @Sendable () -> Void) throws(EventLoopError) {
        guard enqueue(.closure(work), orRejectIfClosed: true) else { throw .shutdown }
    }

    /// Runs `work` on the loop thread and returns its result.
    ///
    /// - Throws: what `work` throws; `EventLoopError.shutdown` once the loop has been shut down.
    public func submit<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (c: CheckedContinuation<T, any Error>) in
            do {
                try execute { c.resume(with: Result { try work() }) }
            } catch {
                c.resume(throwing: error)
            }
        }
    }

    /// True once the loop no longer accepts new handles (shutdown started).
    var isAcceptingHandles: Bool { inbox.withLock { $0.state == .open } }

    /// Queues `job`; after shutdown it runs on the fallback queue, or, with
    /// `orRejectIfClosed`, is refused (returns false). One lock either way.
    @discardableResult
    func enqueue(_ job: LoopJob, orRejectIfClosed: Bool = false) -> Bool {
        let fromLoop = inEventLoop
        let action = inbox.withLock { inbox in
            if orRejectIfClosed, inbox.state == .closed { return LoopInbox<LoopJob>.PushAction.runOnFallback }
            let action = inbox.push(job, fromLoop: fromLoop)
            // Sent under the lock: the loop closes `wakeup` only under this lock
            // too, so a signal can never reach a closed handle.
            if action == .wakeLoop { uv_async_send(wakeup) }
            return action
        }
        switch action {
        case .wakeLoop:
            break
        case .none:
            if fromLoop && !loopIdleActive { startIdle() }
        case .runOnFallback:
            if orRejectIfClosed { return false }
            fallback.async { [self] in
                withExtendedLifetime(self) {
                    cfiber_current_loop_set(Unmanaged.passUnretained(self).toOpaque())
                    run(job)
                    cfiber_current_loop_set(nil)
                }
            }
        }
        return true
    }

    // MARK: The loop thread

    private func startIdle() {
        loopIdleActive = true
        uv_idle_start(idle) { idle in
            EventLoop.from(idle!.pointee.loop).drainInbox()
        }
    }

    /// Runs queued jobs until the inbox is empty or the budget is spent.
    private func drainInbox() {
        var ran = 0
        while ran < Self.drainBudget {
            inbox.withLock { $0.takeAll(into: &loopSpare) }
            if loopSpare.isEmpty { break }
            for job in loopSpare { run(job) }
            ran += loopSpare.count
            loopSpare.removeAll(keepingCapacity: true)
        }
        let pending = inbox.withLock { !$0.isEmpty }
        if pending, !loopIdleActive {
            startIdle()
        } else if !pending, loopIdleActive, !shutdownRequested {
            loopIdleActive = false
            uv_idle_stop(idle)
        }
        if shutdownRequested { continueShutdown() }
    }

    private func run(_ job: LoopJob) {
        switch job {
        case .actorJob(let job):
            job.runSynchronously(isolatedTo: executor, taskExecutor: asUnownedTaskExecutor())
        case .taskJob(let job):
            // Not isolated to the loop's serial executor: code with no isolation
            // finds itself where it expects to be and does not hop again.
            job.runSynchronously(on: asUnownedTaskExecutor())
        case .closure(let work):
            work()
        }
    }

    private func runLoopThread() {
        cfiber_current_loop_set(Unmanaged.passUnretained(self).toOpaque())
        uv_run(uvLoop, UV_RUN_DEFAULT)
        uv_loop_close(uvLoop)
        cfiber_current_loop_set(nil)
        let waiter = exit.withLock { state -> CheckedContinuation<Void, Never>? in
            defer { state = .exited }
            if case .waiting(let c) = state { return c }
            return nil
        }
        waiter?.resume()
    }

    // MARK: Shutdown

    private var shutdownRequested = false
    private var internalHandlesClosed = false

    /// Starts shutdown on the loop thread: closes every handle (their owners
    /// fail pending work with `EventLoopError.shutdown`), keeps running jobs
    /// until nothing is left, then lets `uv_run` return.
    func beginShutdown() {
        enqueue(.closure { [self] in
            guard !shutdownRequested else { return }
            shutdownRequested = true
            inbox.withLock { $0.beginDraining() }
            uv_walk(uvLoop, { handle, _ in
                guard let handle, let data = handle.pointee.data, uv_is_closing(handle) == 0 else { return }
                Unmanaged<UVHandle>.fromOpaque(data).takeUnretainedValue().close()
            }, nil)
            if !loopIdleActive { startIdle() }
        })
    }

    /// Called after each drain once shutdown started: closes the internal
    /// handles when no user handle and no job is left.
    private func continueShutdown() {
        guard loopOpenHandles == 0, !internalHandlesClosed else { return }
        // Closing under the lock: from here on, jobs go to the fallback queue.
        let closed = inbox.withLock { inbox -> Bool in
            guard inbox.isEmpty else { return false }
            _ = inbox.close()
            return true
        }
        guard closed else { return }
        internalHandlesClosed = true
        uv_idle_stop(idle)
        uv_close(UnsafeMutableRawPointer(idle).assumingMemoryBound(to: uv_handle_t.self), nil)
        uv_close(UnsafeMutableRawPointer(wakeup).assumingMemoryBound(to: uv_handle_t.self), nil)
    }

    /// Waits (without blocking a cooperative thread) until the loop thread has exited, then joins it.
    func waitForExit() async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let resumeNow = exit.withLock { state -> Bool in
                if case .exited = state { return true }
                state = .waiting(c)
                return false
            }
            if resumeNow { c.resume() }
        }
        thread?.join()
    }

    /// How many user handles (sockets, timers, listeners) are open on this loop.
    /// Tests use it to prove that nothing leaked.
    public func openHandleCount() async throws -> Int {
        try await submit { [self] in loopOpenHandles }
    }
}
