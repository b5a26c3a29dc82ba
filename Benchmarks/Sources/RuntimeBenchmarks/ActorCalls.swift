import FiberRuntime

/// Benchmark 2: calling an actor pinned to a loop.
///
/// - `sameLoopActor`: the caller is another actor pinned to the same loop, so
///   both share one serial executor and no thread switch is needed. (On the
///   current runtime the call still goes through the loop's queue: the loop
///   runs every job with itself as the *task executor*, which differs from
///   the task's own preference, none, so `swift_task_switch` enqueues.)
/// - `sameLoopActorPreferringLoop`: the same, inside
///   `withTaskExecutorPreference(loop)`: now both executors match and the
///   call runs inline.
/// - `taskExecutorPreference`: the caller is a nonisolated function in a task
///   that prefers the loop; it runs on the loop thread, but each call switches
///   from the generic executor to the actor's and back: an enqueue each way.
/// - `globalPool`: the caller runs on the global cooperative pool, so each call
///   hops to the loop thread (inbox + `uv_async_send`) and back to the pool.
enum ActorCallBenchmark {
    enum Caller: String, CaseIterable, Sendable {
        case sameLoopActor = "actor on the same loop"
        case sameLoopActorPreferringLoop = "actor on the same loop, task preferring the loop"
        case taskExecutorPreference = "nonisolated code, task preferring the loop"
        case globalPool = "task on the global pool"

        /// The name used by `--callers`.
        var option: String {
            switch self {
            case .sameLoopActor: "actor"
            case .sameLoopActorPreferringLoop: "actor-pref"
            case .taskExecutorPreference: "preference"
            case .globalPool: "global"
            }
        }
    }

    struct Sample {
        let caller: Caller
        let calls: Int
        let elapsed: Duration
        let allocations: AllocationCounts?
        var nanosecondsPerCall: Double { elapsed.nanoseconds / Double(calls) }
    }

    /// The actor under test: a counter pinned to `loop`.
    actor Target {
        nonisolated let loop: EventLoop
        private var count = 0
        nonisolated var unownedExecutor: UnownedSerialExecutor { loop.executor }
        init(loop: EventLoop) { self.loop = loop }

        @inline(never)
        func bump() -> Int {
            count &+= 1
            return count
        }
    }

    /// A caller pinned to the same loop as the target.
    actor SameLoopCaller {
        nonisolated let loop: EventLoop
        nonisolated var unownedExecutor: UnownedSerialExecutor { loop.executor }
        init(loop: EventLoop) { self.loop = loop }

        func run(_ target: Target, calls: Int, limit: Duration) async -> (Int, Duration) {
            await callLoop(target, calls: calls, limit: limit)
        }
    }

    /// The timed loop; its isolation is the caller's (`#isolation`), so it runs
    /// on the caller actor's executor, or nonisolated on the generic one.
    static func callLoop(
        _ target: Target, calls: Int, limit: Duration, isolation: isolated (any Actor)? = #isolation
    ) async -> (Int, Duration) {
        let start = clock.now
        let deadline = start + limit
        var done = 0
        var sink = 0
        while done < calls {
            sink &+= await target.bump()
            done += 1
            if done & 1023 == 0, clock.now >= deadline { break }
        }
        let elapsed = clock.now - start
        precondition(sink != 0)
        return (done, elapsed)
    }

    /// The same loop, explicitly nonisolated: it runs on whatever executor the task has.
    nonisolated static func nonisolatedCallLoop(_ target: Target, calls: Int, limit: Duration) async -> (Int, Duration) {
        await callLoop(target, calls: calls, limit: limit, isolation: nil)
    }

    static func run(
        _ caller: Caller, on loop: EventLoop, calls: Int, limit: Duration, countAllocations: Bool
    ) async throws -> Sample {
        let target = Target(loop: loop)
        let result: (Int, Duration)
        if countAllocations { AllocationCounter.start() }
        switch caller {
        case .sameLoopActor:
            let me = SameLoopCaller(loop: loop)
            result = await me.run(target, calls: calls, limit: limit)
        case .sameLoopActorPreferringLoop:
            let me = SameLoopCaller(loop: loop)
            result = await withTaskExecutorPreference(loop) {
                await me.run(target, calls: calls, limit: limit)
            }
        case .taskExecutorPreference:
            result = await withTaskExecutorPreference(loop) {
                await nonisolatedCallLoop(target, calls: calls, limit: limit)
            }
        case .globalPool:
            result = await Task.detached {
                await nonisolatedCallLoop(target, calls: calls, limit: limit)
            }.value
        }
        let allocations = countAllocations ? AllocationCounter.stop() : nil
        return Sample(caller: caller, calls: result.0, elapsed: result.1, allocations: allocations)
    }

    /// Checks where each kind of caller really runs, so the labels above stay true.
    static func verifyPlacement(on loop: EventLoop) async throws {
        let onLoopInActor = await SameLoopCaller(loop: loop).isOnLoop()
        let onLoopWithPreference = await withTaskExecutorPreference(loop) { await nonisolatedIsOnLoop(loop) }
        let onLoopDetached = await Task.detached { await nonisolatedIsOnLoop(loop) }.value
        guard onLoopInActor, onLoopWithPreference, !onLoopDetached else {
            throw BenchmarkError("caller placement unexpected: actor on loop \(onLoopInActor), "
                                 + "preference on loop \(onLoopWithPreference), detached on loop \(onLoopDetached)")
        }
    }

    nonisolated static func nonisolatedIsOnLoop(_ loop: EventLoop) async -> Bool {
        await Task.yield()
        return loop.inEventLoop
    }
}

extension ActorCallBenchmark.SameLoopCaller {
    func isOnLoop() -> Bool { loop.inEventLoop }
}
