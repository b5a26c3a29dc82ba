import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Two clients of one process taking turns: every request goes through the client of the
/// phase it starts in, and a new phase begins every few milliseconds, the clients
/// alternating. A phase's requests are those that started in it (counted when they
/// complete, however late); its CPU time is the process's (`CLOCK_PROCESS_CPUTIME_ID`)
/// between its two boundaries; its rate is its requests over its own wall-clock length.
/// Each B phase is compared with the mean of the A phases on either side of it, which
/// cancels a load that drifts steadily across the three.
///
/// Why: on a shared machine another tenant's load moves from second to second. Two runs
/// one after the other, or two processes sharing a CPU, see different loads or disturb
/// each other's caches; phases a tenth of a second apart see the same load. (The CPU of
/// a request still in flight at a boundary falls in the next phase: a few requests of
/// thousands, in both directions alike.)
final class InterleavedPhases: @unchecked Sendable {
    // @unchecked: `completed` is a fixed buffer of atomics, written only through them.
    struct Boundary: Sendable {
        let cpuNanoseconds: Int
        let wallNanoseconds: Int
    }

    static let capacity = 100_000
    private let number = Atomic<Int>(0)
    private let stopped = Atomic<Bool>(false)
    private let completed: UnsafeMutablePointer<Atomic<Int>>
    private let clients: Int

    /// One client (every phase is its) or two (even phases are 0's, odd ones 1's).
    init(clients: Int) {
        self.clients = min(max(clients, 1), 2)
        completed = .allocate(capacity: Self.capacity)
        for index in 0..<Self.capacity { (completed + index).initialize(to: Atomic(0)) }
    }

    deinit {
        completed.deinitialize(count: Self.capacity)
        completed.deallocate()
    }

    /// The current phase, for a request that starts now.
    var current: Int { number.load(ordering: .relaxed) }

    /// The client of `phase`.
    func client(of phase: Int) -> Int { phase % clients }

    /// Counts a request that started in `phase` and has completed.
    func complete(_ phase: Int) {
        if phase < Self.capacity { completed[phase].add(1, ordering: .relaxed) }
    }

    func stop() { stopped.store(true, ordering: .relaxed) }

    /// Starts a new phase every `period` until stopped; returns the boundaries, the first
    /// being the start of phase 0.
    func alternate(every period: Duration) async -> [Boundary] {
        var boundaries = [Self.reading()]
        while !stopped.load(ordering: .relaxed), boundaries.count < Self.capacity {
            try? await Task.sleep(for: period)
            boundaries.append(Self.reading())
            number.add(1, ordering: .relaxed)
        }
        return boundaries
    }

    /// A JSON line: each client's CPU µs per request (median over its phases), the CPU cost
    /// of B over A and the throughput B loses (medians and quartiles over the B phases,
    /// each against the A phases around it). Only phases that lie wholly inside
    /// `measured` (seconds since the first boundary) count: not the warm-up, nor the
    /// drain after the timed run.
    func summary(_ boundaries: [Boundary], a: String, b: String, measured: ClosedRange<Double>) -> String {
        struct Phase {
            let client: Int
            let cpuPerRequest: Double
            let rate: Double
        }
        var phases: [Phase?] = []
        for index in 0..<max(0, boundaries.count - 1) {
            let (start, end) = (boundaries[index], boundaries[index + 1])
            let seconds = Double(end.wallNanoseconds - boundaries[0].wallNanoseconds) / 1e9
            let began = Double(start.wallNanoseconds - boundaries[0].wallNanoseconds) / 1e9
            let requests = completed[index].load(ordering: .relaxed)
            guard measured.contains(began), measured.contains(seconds), requests > 0 else {
                phases.append(nil)
                continue
            }
            phases.append(Phase(client: client(of: index),
                                cpuPerRequest: Double(end.cpuNanoseconds - start.cpuNanoseconds) / 1000 / Double(requests),
                                rate: Double(requests) * 1e9 / Double(end.wallNanoseconds - start.wallNanoseconds)))
        }
        var (costs, lost) = ([Double](), [Double]())
        for index in phases.indices.dropFirst().dropLast() {
            guard let before = phases[index - 1], let phase = phases[index], let after = phases[index + 1],
                  phase.client == 1, before.client == 0, after.client == 0 else { continue }
            costs.append(phase.cpuPerRequest / ((before.cpuPerRequest + after.cpuPerRequest) / 2) - 1)
            lost.append(1 - phase.rate / ((before.rate + after.rate) / 2))
        }
        let valid = phases.compactMap { $0 }
        let cpuA = Self.quantile(valid.filter { $0.client == 0 }.map(\.cpuPerRequest), 0.5)
        let cpuB = Self.quantile(valid.filter { $0.client == 1 }.map(\.cpuPerRequest), 0.5)
        func number(_ v: Double) -> String { v.isFinite ? "\((v * 10_000).rounded() / 10_000)" : "null" }
        return "{\"a\":\"\(a)\",\"b\":\"\(b)\",\"pairs\":\(costs.count),\"cpu_us_a\":\(number(cpuA)),\"cpu_us_b\":\(number(cpuB)),"
            + "\"cost_median\":\(number(Self.quantile(costs, 0.5))),\"cost_q1\":\(number(Self.quantile(costs, 0.25))),"
            + "\"cost_q3\":\(number(Self.quantile(costs, 0.75))),\"throughput_lost_median\":\(number(Self.quantile(lost, 0.5))),"
            + "\"throughput_lost_q1\":\(number(Self.quantile(lost, 0.25))),\"throughput_lost_q3\":\(number(Self.quantile(lost, 0.75)))}"
    }

    /// The `q` quantile, interpolated between the two nearest values (the median of an even
    /// count is the mean of the middle two).
    static func quantile(_ values: [Double], _ q: Double) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return .nan }
        let position = Double(sorted.count - 1) * q
        let (low, high) = (Int(position.rounded(.down)), Int(position.rounded(.up)))
        return sorted[low] + (sorted[high] - sorted[low]) * (position - Double(low))
    }

    private static func reading() -> Boundary {
        var cpu = timespec(), wall = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu)
        clock_gettime(CLOCK_MONOTONIC, &wall)
        return Boundary(cpuNanoseconds: cpu.tv_sec * 1_000_000_000 + cpu.tv_nsec,
                        wallNanoseconds: wall.tv_sec * 1_000_000_000 + wall.tv_nsec)
    }
}
