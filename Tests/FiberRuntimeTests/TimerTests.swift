@testable import FiberRuntime
import Synchronization
import Testing

@Suite("Timers", .timeLimit(.minutes(1)))
struct TimerTests {
    @Test func sleepWaitsAtLeastItsDuration() async throws {
        try await withGroup { group in
            let clock = ContinuousClock()
            let start = clock.now
            try await group.loops[0].sleep(for: .milliseconds(50))
            #expect(clock.now - start >= .milliseconds(50))
        }
    }

    /// A delay at or below zero means "now": a deadline that passed a moment
    /// ago (a negative duration under a second has zero seconds and negative
    /// attoseconds) once crashed the conversion to libuv's milliseconds.
    @Test func aDelayAlreadyPastFiresAtOnce() async throws {
        try await withGroup { group in
            let loop = group.loops[0]
            for delay: Duration in [.nanoseconds(-1), .milliseconds(-500), .seconds(-3), .zero] {
                try await loop.sleep(for: delay)
                // Fires, or the suite's time limit fails the test.
                try await withCheckedThrowingContinuation { (fired: CheckedContinuation<Void, any Error>) in
                    do {
                        try loop.scheduleTask(in: delay) { fired.resume() }
                    } catch {
                        fired.resume(throwing: error)
                    }
                }
            }
        }
    }

    @Test(arguments: [
        (Duration.nanoseconds(-1), UInt64(0)), (.milliseconds(-500), 0), (.seconds(-2), 0), (.zero, 0),
        (.nanoseconds(1), 1), (.milliseconds(1), 1), (.microseconds(1_000_001), 1001), (.seconds(3), 3000),
        (.seconds(Int64.max), UInt64.max),
    ])
    func delaysBecomeWholeMillisecondsRoundedUp(delay: Duration, milliseconds: UInt64) {
        #expect(LoopTimer.milliseconds(delay) == milliseconds)
    }

    @Test func cancellationEndsASleepAtOnce() async throws {
        try await withGroup { group in
            let loop = group.loops[0]
            let clock = ContinuousClock()
            let start = clock.now
            let sleeper = Task { try await loop.sleep(for: .seconds(60)) }
            try await Task.sleep(for: .milliseconds(20))
            sleeper.cancel()
            await #expect(throws: CancellationError.self) { try await sleeper.value }
            #expect(clock.now - start < .seconds(30), "cancelled long before its 60 s")
        }
    }

    @Test func sleepInAnAlreadyCancelledTaskThrowsAtOnce() async throws {
        try await withGroup { group in
            let loop = group.loops[0]
            let task = Task {
                withUnsafeCurrentTask { $0?.cancel() }
                try await loop.sleep(for: .seconds(60))
            }
            await #expect(throws: CancellationError.self) { try await task.value }
        }
    }

    @Test func scheduledTasksFireInDeadlineOrder() async throws {
        try await withGroup { group in
            let loop = group.loops[0]
            let fired = Locked<[Int]>([])
            for (i, ms) in [60, 20, 40].enumerated() {
                try loop.scheduleTask(in: .milliseconds(ms)) {
                    #expect(loop.inEventLoop)
                    fired.withLock { $0.append(i) }
                }
            }
            try await loop.sleep(for: .milliseconds(120))
            #expect(fired.withLock { $0 } == [1, 2, 0])
        }
    }

    @Test func cancelledScheduledTaskNeverRuns() async throws {
        try await withGroup { group in
            let loop = group.loops[0]
            let fired = Atomic(false)
            let task = try loop.scheduleTask(in: .milliseconds(30)) { fired.store(true, ordering: .relaxed) }
            task.cancel()
            task.cancel()
            try await loop.sleep(for: .milliseconds(80))
            let didFire = fired.load(ordering: .relaxed)
            #expect(!didFire)
        }
    }

    @Test func withTimeoutReturnsOrThrowsDeadlineExceeded() async throws {
        try await withGroup { group in
            let loop = group.loops[0]
            let value = try await loop.withTimeout(.seconds(5)) { 7 }
            #expect(value == 7)
            await #expect(throws: DeadlineExceeded.self) {
                try await loop.withTimeout(.milliseconds(30)) { try await loop.sleep(for: .seconds(60)) }
            }
        }
    }
}
