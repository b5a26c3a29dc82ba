/// Which downloads run and which wait, per host: at most `limit` at once for a
/// host, the rest in the order they came. A pure value; `FiberDownloader` performs it.
struct HostQueue {
    let limit: Int
    private var running: [String: Int] = [:]
    private var waiting: [String: [Int]] = [:]  // short lists: first in, first out

    init(limit: Int) { self.limit = max(1, limit) }

    /// Download `id` for `host` asks to start: true when it may run now, false when it waits.
    mutating func arrive(_ id: Int, host: String) -> Bool {
        if running[host, default: 0] < limit {
            running[host, default: 0] += 1
            return true
        }
        waiting[host, default: []].append(id)
        return false
    }

    /// A running download of `host` ended: the next waiting one (now running), if any.
    mutating func finish(host: String) -> Int? {
        if let next = waiting[host]?.first {
            waiting[host]?.removeFirst()
            if waiting[host]?.isEmpty == true { waiting[host] = nil }
            return next
        }
        running[host, default: 1] -= 1
        if running[host] == 0 { running[host] = nil }
        return nil
    }

    /// A waiting download left the queue (cancelled): true when it was waiting.
    mutating func leave(_ id: Int, host: String) -> Bool {
        guard let index = waiting[host]?.firstIndex(of: id) else { return false }
        waiting[host]?.remove(at: index)
        if waiting[host]?.isEmpty == true { waiting[host] = nil }
        return true
    }

    /// How many run for `host`, and how many wait.
    func counts(for host: String) -> (running: Int, waiting: Int) {
        (running[host, default: 0], waiting[host]?.count ?? 0)
    }
}
