import CBenchSupport
import Dispatch
import FiberRuntime
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

// MARK: Errors

struct BenchmarkError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

// MARK: Time

let clock = ContinuousClock()

extension Duration {
    /// The duration in nanoseconds, as a floating-point number.
    var nanoseconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) * 1e9 + Double(attoseconds) / 1e9
    }

    /// The duration in whole nanoseconds.
    var wholeNanoseconds: Int {
        let (seconds, attoseconds) = components
        return Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
    }

    var seconds: Double { nanoseconds / 1e9 }
}

// MARK: Threads

/// A plain POSIX thread (not a cooperative-pool thread), joined explicitly.
final class OSThread: @unchecked Sendable {
    // @unchecked: `handle` is written in init and read only by `join`, on the creating thread.
    private var handle = pthread_t()

    private final class Body {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }

    init(_ run: @escaping @Sendable () -> Void) {
        let body = Unmanaged.passRetained(Body(run)).toOpaque()
        let rc = pthread_create(&handle, nil, { arg in
            Unmanaged<Body>.fromOpaque(arg!).takeRetainedValue().run()
            return nil
        }, body)
        precondition(rc == 0, "pthread_create failed with \(rc)")
    }

    func join() { pthread_join(handle, nil) }

    /// Lets the thread clean up after itself when it ends; do not `join` afterwards.
    func detach() { pthread_detach(handle) }
}

// MARK: Pinning

/// Which CPU each benchmark thread should run on; nil means "let the kernel choose".
struct Placement: Sendable {
    let enabled: Bool
    let cpus: [Int32]

    init(enabled: Bool) {
        let count = Int(bench_allowed_cpu_count())
        cpus = (0..<count).map { bench_allowed_cpu(Int32($0)) }.filter { $0 >= 0 }
        // Pinning needs at least two CPUs to keep the two sides apart.
        self.enabled = enabled && cpus.count >= 2
    }

    /// The CPU for "side" 0 (the loop under test, or the server) and 1 (the callers, or the clients).
    func cpu(forSide side: Int) -> Int32? {
        guard enabled else { return nil }
        return cpus[side % cpus.count]
    }

    var summary: String {
        guard enabled else { return "off (threads float over \(cpus.count) CPU(s))" }
        return "loop / server on CPU \(cpus[0]), submitting thread / client loop on CPU \(cpus[1])"
    }
}

/// Pins the calling thread, or lets it float again with nil.
func pinCurrentThread(to cpu: Int32?) {
    if let cpu {
        let rc = bench_pin_current_thread(cpu)
        if rc != 0 { print("warning: could not pin a thread to CPU \(cpu) (errno \(rc))") }
    } else {
        _ = bench_unpin_current_thread()
    }
}

/// Pins (or unpins) the thread of `loop`.
func pin(_ loop: EventLoop, to cpu: Int32?) async throws {
    try await loop.submit { pinCurrentThread(to: cpu) }
}

// MARK: Allocation counting

struct AllocationCounts: Sendable {
    var allocations: UInt64
    var frees: UInt64
    var bytes: UInt64

    static func - (a: Self, b: Self) -> Self {
        AllocationCounts(allocations: a.allocations &- b.allocations, frees: a.frees &- b.frees, bytes: a.bytes &- b.bytes)
    }
}

enum AllocationCounter {
    static func start() {
        fiber_alloc_counts_reset()
        fiber_alloc_counting_set(1)
    }

    static func stop() -> AllocationCounts {
        fiber_alloc_counting_set(0)
        let c = fiber_alloc_counts_get()
        return AllocationCounts(allocations: c.allocations, frees: c.frees, bytes: c.bytes)
    }

    /// True when allocations made by the Swift runtime (a shared library) reach
    /// the interposed malloc, i.e. the counts below mean something.
    static let works: Bool = {
        start()
        let box = Box(value: 42)
        withExtendedLifetime(box) {}
        let counted = stop().allocations
        return counted > 0
    }()

    private final class Box {
        let value: Int
        @inline(never) init(value: Int) { self.value = value }
    }
}

// MARK: Bounded waiting

/// Waits for `operation` at most `limit`; throws `BenchmarkError` when it takes longer
/// (the operation is cancelled and left behind, so a hang in the runtime cannot hang the run).
func withDeadline<T: Sendable>(
    _ limit: Duration, _ what: String, _ operation: @escaping @Sendable () async throws -> T
) async throws -> T {
    let state = DeadlineState<T>()
    return try await withCheckedThrowingContinuation { (c: CheckedContinuation<T, any Error>) in
        state.slot.withLock { $0 = c }
        let work = Task {
            do { state.finish(.success(try await operation())) } catch { state.finish(.failure(error)) }
            state.timer.withLock { $0?.cancel() }
        }
        state.work.withLock { $0 = work }
        let timer = Task {
            do { try await Task.sleep(for: limit) } catch { return }
            state.finish(.failure(BenchmarkError("\(what) did not finish within \(limit)")))
            state.work.withLock { $0?.cancel() }
        }
        state.timer.withLock { $0 = timer }
    }
}

private final class DeadlineState<T: Sendable>: Sendable {
    let slot = Mutex<CheckedContinuation<T, any Error>?>(nil)
    let work = Mutex<Task<Void, Never>?>(nil)
    let timer = Mutex<Task<Void, Never>?>(nil)

    /// Resumes the waiter with the first result only.
    func finish(_ result: Result<T, any Error>) {
        let c = slot.withLock { s -> CheckedContinuation<T, any Error>? in
            defer { s = nil }
            return s
        }
        c?.resume(with: result)
    }
}

// MARK: Statistics

func median(_ values: [Double]) -> Double {
    precondition(!values.isEmpty)
    let sorted = values.sorted()
    let mid = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}

/// The nearest-rank percentile `p` (0...100) of sorted values.
func percentile(_ sorted: [Int], _ p: Double) -> Int {
    precondition(!sorted.isEmpty)
    let rank = Int((p / 100 * Double(sorted.count)).rounded(.up))
    return sorted[min(max(rank, 1), sorted.count) - 1]
}
