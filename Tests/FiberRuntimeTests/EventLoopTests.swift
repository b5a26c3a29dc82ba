import FiberRuntime
import Foundation
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// An actor pinned to a loop: its methods run on the loop's thread.
actor LoopBoundCounter {
    nonisolated let loop: EventLoop
    private(set) var value = 0
    nonisolated var unownedExecutor: UnownedSerialExecutor { loop.executor }
    init(loop: EventLoop) { self.loop = loop }

    func increment() -> Bool {
        value += 1
        return loop.inEventLoop
    }
}

@Suite("Event loop", .timeLimit(.minutes(1)))
struct EventLoopTests {
    @Test func jobsRunInSubmissionOrderOnTheLoopThread() async throws {
        try await withGroup { group in
            let loop = group.loops[0]
            let seen = Locked<[Int]>([])
            let offLoop = Locked(0)
            for i in 0..<1000 {
                try loop.execute {
                    if !loop.inEventLoop { offLoop.withLock { $0 += 1 } }
                    seen.withLock { $0.append(i) }
                }
            }
            _ = try await loop.submit { 0 }
            #expect(seen.withLock { $0 } == Array(0..<1000))
            #expect(offLoop.withLock { $0 } == 0)
            #expect(!loop.inEventLoop)
        }
    }

    @Test func hundredThousandJobsFromEightThreadsAllRunInPerThreadOrder() async throws {
        try await withGroup { group in
            let loop = group.loops[0]
            let threads = 8, perThread = 12_500
            final class Tally: Sendable {
                let last: Locked<[Int]>
                let outOfOrder = Atomic<Int>(0)
                let done = Atomic<Int>(0)
                init(threads: Int) { last = Locked([Int](repeating: -1, count: threads)) }
            }
            let tally = Tally(threads: threads)
            // Eight OS threads, not tasks: the cooperative pool has only as many threads as cores.
            let submitters = (0..<threads).map { t in
                Thread {
                    for i in 0..<perThread {
                        try? loop.execute {
                            tally.last.withLock { last in
                                if last[t] != i - 1 { tally.outOfOrder.add(1, ordering: .relaxed) }
                                last[t] = i
                            }
                            tally.done.add(1, ordering: .relaxed)
                        }
                    }
                }
            }
            for thread in submitters { thread.start() }
            while tally.done.load(ordering: .relaxed) < threads * perThread {
                try await Task.sleep(for: .milliseconds(5))
            }
            #expect(tally.done.load(ordering: .relaxed) == threads * perThread)
            #expect(tally.outOfOrder.load(ordering: .relaxed) == 0)
        }
    }

    @Test func submitReturnsValuesAndErrors() async throws {
        struct Boom: Error {}
        try await withGroup { group in
            let loop = group.loops[0]
            let onLoop = try await loop.submit { loop.inEventLoop }
            #expect(onLoop)
            await #expect(throws: Boom.self) { try await loop.submit { throw Boom() } }
        }
    }

    @Test func actorsPinnedToALoopRunOnItsThread() async throws {
        try await withGroup(loops: 2) { group in
            let counters = group.loops.map { LoopBoundCounter(loop: $0) }
            for counter in counters {
                for _ in 0..<100 { #expect(await counter.increment()) }
                #expect(await counter.value == 100)
            }
        }
    }

    @Test func taskExecutorPreferenceRunsTheTaskOnTheLoop() async throws {
        try await withGroup { group in
            let loop = group.loops[0]
            let onLoop = await withTaskExecutorPreference(loop) { () async -> Bool in
                await Task.yield()
                return loop.inEventLoop
            }
            #expect(onLoop)
        }
    }

    @Test func nextPrefersTheCallersLoopAndOtherwiseRotates() async throws {
        try await withGroup(loops: 2) { group in
            let a = group.loops[0]
            let stays = try await a.submit { group.next() === a }
            #expect(stays)
            let picks = (0..<4).map { _ in group.next().index }
            #expect(Set(picks) == [0, 1])
        }
    }

    @Test func sharedGroupStartsLazilyAndCannotBeShutDown() async throws {
        let loop = EventLoopGroup.shared.next()
        let answer = try await loop.submit { 42 }
        #expect(answer == 42)
        await #expect(throws: EventLoopError.sharedGroupShutdown) { try await EventLoopGroup.shared.shutdown() }
        #expect(EventLoopGroup.shared.loops.count == EventLoopGroup.systemCoreCount)
    }

    @Test func anIdleGroupUsesNoCPU() async throws {
        try await withGroup(loops: 2) { group in
            // Each loop thread's own CPU clock, so tests running in parallel do not count.
            var before: [Double] = []
            for loop in group.loops { before.append(try await loop.submit { threadCPUSeconds() }) }
            try await Task.sleep(for: .milliseconds(500))
            for (i, loop) in group.loops.enumerated() {
                let used = try await loop.submit { threadCPUSeconds() } - before[i]
                // A spinning loop would burn ~0.5 s; an idle one sits in epoll_wait.
                #expect(used < 0.05, "idle loop \(i) used \(used) s of CPU in 0.5 s")
            }
        }
    }
}
