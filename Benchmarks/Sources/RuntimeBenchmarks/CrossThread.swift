import Dispatch
import FiberRuntime
import Synchronization

/// Benchmark 1: `loop.execute { }` from threads that are not the loop's.
///
/// `threads` plain POSIX threads wait at a gate, then each submits its share
/// of `jobs` closures; every closure bumps an atomic counter. The clock starts
/// when the gate opens and stops when a sentinel job, submitted after every
/// submitter has returned, runs on the loop: the inbox is FIFO, so by then
/// every counted job has run (the counter is checked to be sure).
enum CrossThreadBenchmark {
    struct Sample {
        let threads: Int
        let jobs: Int
        /// Gate open → last job ran.
        let elapsed: Duration
        /// Gate open → the slowest submitter returned from its last `execute`.
        let submitElapsed: Duration
        let allocations: AllocationCounts?

        var nanosecondsPerJob: Double { elapsed.nanoseconds / Double(jobs) }
        var jobsPerSecond: Double { Double(jobs) / elapsed.seconds }
        var submitNanosecondsPerJob: Double { submitElapsed.nanoseconds / Double(jobs) }
    }

    private final class Counter: Sendable {
        let value = Atomic<Int>(0)
    }

    static func run(
        on loop: EventLoop, threads: Int, jobs: Int, limit: Duration, submitterCPU: Int32?, countAllocations: Bool
    ) throws -> Sample {
        let counter = Counter()
        let perThread = jobs / threads
        let ready = DispatchSemaphore(value: 0)
        let gate = DispatchSemaphore(value: 0)
        let submitted = Mutex([Int](repeating: 0, count: threads))
        let submitEnds = Mutex([ContinuousClock.Instant?](repeating: nil, count: threads))
        let failure = Mutex<(any Error)?>(nil)
        let deadline = Mutex<ContinuousClock.Instant>(clock.now + limit)

        let workers = (0..<threads).map { index in
            OSThread {
                if let submitterCPU { pinCurrentThread(to: submitterCPU) }
                ready.signal()
                gate.wait()
                let stopAt = deadline.withLock { $0 }
                var count = 0
                do {
                    while count < perThread {
                        try loop.execute { counter.value.add(1, ordering: .relaxed) }
                        count += 1
                        // Bounded in time as well as in count.
                        if count & 63 == 0, clock.now >= stopAt { break }
                    }
                } catch {
                    failure.withLock { $0 = error }
                }
                let end = clock.now
                submitted.withLock { $0[index] = count }
                submitEnds.withLock { $0[index] = end }
            }
        }
        for _ in 0..<threads { ready.wait() }

        if countAllocations { AllocationCounter.start() }
        let start = clock.now
        deadline.withLock { $0 = start + limit }
        for _ in 0..<threads { gate.signal() }
        for worker in workers { worker.join() }

        let finished = DispatchSemaphore(value: 0)
        let end = Mutex<ContinuousClock.Instant?>(nil)
        let seenAtEnd = Mutex(0)
        try loop.execute {
            let now = clock.now
            end.withLock { $0 = now }
            seenAtEnd.withLock { $0 = counter.value.load(ordering: .relaxed) }
            finished.signal()
        }
        guard finished.wait(timeout: .now() + .seconds(30)) == .success else {
            throw BenchmarkError("cross-thread jobs (\(threads) threads) did not all run within 30 s")
        }
        let allocations = countAllocations ? AllocationCounter.stop() : nil

        if let error = failure.withLock({ $0 }) { throw BenchmarkError("execute failed: \(error)") }
        let total = submitted.withLock { $0.reduce(0, +) }
        let seen = seenAtEnd.withLock { $0 }
        guard seen == total else {
            throw BenchmarkError("the sentinel ran after \(seen) of \(total) jobs: the inbox is not FIFO")
        }
        let lastSubmit = submitEnds.withLock { $0.compactMap { $0 }.max()! }
        return Sample(threads: threads, jobs: total, elapsed: end.withLock { $0! } - start,
                      submitElapsed: lastSubmit - start, allocations: allocations)
    }
}
