import FiberRuntime

/// One flight per key: the first caller for a key starts `work` in a task of
/// its own, and callers that arrive while it runs join it and get its result.
/// The one mechanism behind request deduplication, the auth refresh, the cache
/// interceptor's background refresh of stale entries and the shared cache's coalescing.
///
/// The work runs unstructured, so cancelling the caller that started it does
/// not fail the others (a cancelled caller still gets the shared result). A
/// flight leaves the table when its work returns, after whatever the work
/// stored: a caller that arrives afterwards starts a new flight or, if the
/// work stored its result somewhere, finds it there.
package final class SingleFlight<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private struct Flight {
        let id: Int
        let task: Task<Value, any Error>
    }

    private struct Table {
        var flights: [Key: Flight] = [:]
        var lastID = 0
        var joined = 0
    }

    private let table = Locked(Table())

    package init() {}

    /// The result of the flight for `key`: the running one, or a new one running `work`.
    ///
    /// - Throws: what the flight's work throws, to every caller that shares it.
    package func run(_ key: Key, _ work: @escaping @Sendable () async throws -> Value) async throws -> Value {
        try await flight(for: key, joining: true, work).value
    }

    /// Starts `work` as the flight for `key` unless one is running, and returns at once.
    package func startIfIdle(_ key: Key, _ work: @escaping @Sendable () async throws -> Value) {
        _ = flight(for: key, joining: false, work)
    }

    /// Flights running now.
    package var count: Int { table.withLock { $0.flights.count } }

    /// Callers that joined a flight already running, since the start (a test's view of sharing).
    package var joinedCount: Int { table.withLock { $0.joined } }

    /// Returns when no flight is running (those started meanwhile included).
    package func waitUntilIdle() async {
        while let task = table.withLock({ $0.flights.values.first?.task }) {
            _ = await task.result
        }
    }

    private func flight(for key: Key, joining: Bool, _ work: @escaping @Sendable () async throws -> Value) -> Task<Value, any Error> {
        table.withLock { table in
            if let running = table.flights[key] {
                if joining { table.joined += 1 }
                return running.task
            }
            table.lastID += 1
            let id = table.lastID
            // Registered before it can finish: the task's own removal takes the same lock.
            let task = Task<Value, any Error> {
                defer { self.land(key, id) }
                return try await work()
            }
            table.flights[key] = Flight(id: id, task: task)
            return task
        }
    }

    private func land(_ key: Key, _ id: Int) {
        table.withLock { table in
            if table.flights[key]?.id == id { table.flights[key] = nil }
        }
    }
}
