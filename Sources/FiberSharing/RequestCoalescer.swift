/// What one network round of `getCached` produced: the entry (stored or not)
/// and how it was obtained.
struct FetchOutcome: Sendable {
    var entry: CacheEntry
    var source: CacheSource
}

/// One flight per cache key: concurrent misses for a key share one request
/// (no thundering herd), and a stale-while-revalidate refresh starts only
/// when no flight for its key is running.
///
/// A flight runs in its own task, so one caller's cancellation does not fail
/// the others, and removes itself once its result is stored: a caller that
/// arrives afterwards finds the new entry in the store.
actor RequestCoalescer {
    private struct Flight {
        let id: Int
        let task: Task<FetchOutcome, any Error>
    }

    private var flights: [String: Flight] = [:]
    private var nextID = 0

    /// The number of flights running.
    var count: Int { flights.count }

    /// How many callers joined a flight already running, since the start (a test's view of coalescing).
    private(set) var joinedCount = 0

    /// The result of the flight for `key`: the running one, or a new one running `work`.
    ///
    /// - Throws: what the flight's `work` throws.
    func run(_ key: String, _ work: @escaping @Sendable () async throws -> FetchOutcome) async throws -> FetchOutcome {
        if let flight = flights[key] {
            joinedCount += 1
            return try await flight.task.value
        }
        return try await start(key, work).value
    }

    /// Starts `work` as the flight for `key` unless one is running; returns at once.
    func runInBackground(_ key: String, _ work: @escaping @Sendable () async throws -> FetchOutcome) {
        guard flights[key] == nil else { return }
        _ = start(key, work)
    }

    /// Returns when no flight is running (those started meanwhile included).
    func waitUntilIdle() async {
        while let flight = flights.values.first {
            _ = await flight.task.result
        }
    }

    private func start(_ key: String,
                       _ work: @escaping @Sendable () async throws -> FetchOutcome) -> Task<FetchOutcome, any Error> {
        nextID += 1
        let id = nextID
        let task = Task {
            let result = await Result { try await work() }
            self.finish(key, id)
            return try result.get()
        }
        flights[key] = Flight(id: id, task: task)
        return task
    }

    private func finish(_ key: String, _ id: Int) {
        if flights[key]?.id == id { flights[key] = nil }
    }
}

extension Result where Failure == any Error {
    /// The result of an async throwing body.
    init(_ body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}
