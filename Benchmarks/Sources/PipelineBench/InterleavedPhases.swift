import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Two clients of one process taking turns: every request goes through the client of the
/// current phase, and the phase flips every few milliseconds. Each phase's CPU time (the
/// process's, from `CLOCK_PROCESS_CPUTIME_ID`) over the requests its client completed is
/// its cost per request; each B phase is compared with the A phase before it.
///
/// Why: on a shared machine another tenant's load moves from second to second. Two runs
/// one after the other, or two processes sharing a CPU, see different loads or disturb
/// each other's caches; phases a tenth of a second apart see the same load. (The few
/// requests in flight when a phase flips count for the phase they started in.)
final class InterleavedPhases: Sendable {
    struct Phase: Sendable {
        let client: Int
        let cpuNanoseconds: Int
        let requests: Int
    }

    private let phase = Atomic<Int>(0)
    private let completedA = Atomic<Int>(0)
    private let completedB = Atomic<Int>(0)
    private let stopped = Atomic<Bool>(false)
    private let clients: Int

    /// One client (it has every phase) or two (0 and 1 take turns).
    init(clients: Int) { self.clients = min(max(clients, 1), 2) }

    /// The client of the current phase.
    var current: Int { phase.load(ordering: .relaxed) }

    /// Counts a request completed by `client`.
    func count(_ client: Int) {
        if client == 0 { completedA.add(1, ordering: .relaxed) } else { completedB.add(1, ordering: .relaxed) }
    }

    private func completed(_ client: Int) -> Int {
        client == 0 ? completedA.load(ordering: .relaxed) : completedB.load(ordering: .relaxed)
    }

    func stop() { stopped.store(true, ordering: .relaxed) }

    /// Flips the phase every `period` until stopped; returns the phases, in order.
    func alternate(every period: Duration) async -> [Phase] {
        var phases: [Phase] = []
        var (cpu, done) = (Self.cpuNanoseconds(), completed(0))
        while !stopped.load(ordering: .relaxed), phases.count < 100_000 {
            try? await Task.sleep(for: period)
            let client = phase.load(ordering: .relaxed)
            let next = (client + 1) % clients
            // The next client's count is read before its phase begins.
            let nextDone = completed(next)
            phase.store(next, ordering: .relaxed)
            let (nowCPU, nowDone) = (Self.cpuNanoseconds(), completed(client))
            phases.append(Phase(client: client, cpuNanoseconds: nowCPU - cpu, requests: nowDone - done))
            (cpu, done) = (nowCPU, nextDone)
        }
        return phases
    }

    /// A JSON line: each client's CPU µs per request (median over its phases), the CPU cost of B
    /// over A and the throughput B loses (medians and quartiles over consecutive A-then-B
    /// phases), after `skipping` seconds.
    static func summary(_ phases: [Phase], a: String, b: String, skipping seconds: Double, phase: Double) -> String {
        let kept = Array(phases.dropFirst(Int((seconds / phase).rounded(.up)) + 1))
        func perRequest(_ p: Phase) -> Double { Double(p.cpuNanoseconds) / 1000 / Double(max(p.requests, 1)) }
        var costs: [Double] = []
        // Phases last the same time, and the client keeps its CPU busy: fewer requests in a
        // B phase than in the A phase before it is throughput lost.
        var lost: [Double] = []
        for (first, second) in zip(kept, kept.dropFirst()) where first.client == 0 && second.client == 1
            && first.requests > 0 && second.requests > 0 {
            costs.append(perRequest(second) / perRequest(first) - 1)
            lost.append(1 - Double(second.requests) / Double(first.requests))
        }
        func quantile(_ values: [Double], _ q: Double) -> Double {
            let sorted = values.sorted()
            return sorted.isEmpty ? .nan : sorted[min(sorted.count - 1, Int(Double(sorted.count - 1) * q + 0.5))]
        }
        let cpuA = quantile(kept.filter { $0.client == 0 }.map(perRequest), 0.5)
        let cpuB = quantile(kept.filter { $0.client == 1 }.map(perRequest), 0.5)
        func number(_ v: Double) -> String { v.isFinite ? "\((v * 10_000).rounded() / 10_000)" : "null" }
        return "{\"a\":\"\(a)\",\"b\":\"\(b)\",\"pairs\":\(costs.count),\"cpu_us_a\":\(number(cpuA)),\"cpu_us_b\":\(number(cpuB)),"
            + "\"cost_median\":\(number(quantile(costs, 0.5))),\"cost_q1\":\(number(quantile(costs, 0.25))),"
            + "\"cost_q3\":\(number(quantile(costs, 0.75))),\"throughput_lost_median\":\(number(quantile(lost, 0.5))),"
            + "\"throughput_lost_q1\":\(number(quantile(lost, 0.25))),\"throughput_lost_q3\":\(number(quantile(lost, 0.75)))}"
    }

    private static func cpuNanoseconds() -> Int {
        var time = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
        return time.tv_sec * 1_000_000_000 + time.tv_nsec
    }
}
