import FiberRuntime

/// A `CacheStorage` in process memory: records by key, least recently used
/// evicted past `maxEntries` or `maxBytes`. Never throws.
public final class MemoryCacheStorage: CacheStorage {
    private struct State {
        var records = LRUMap<String, CacheRecord>()
        var bytes = 0
    }

    /// The most records kept.
    public let maxEntries: Int
    /// The most bytes (`CacheRecord.approximateSize`) all records may take.
    public let maxBytes: Int
    private let state = Locked(State())

    /// An empty storage within the given limits (by default 1,000 records, 64 MiB).
    public init(maxEntries: Int = 1_000, maxBytes: Int = 64 << 20) {
        self.maxEntries = max(0, maxEntries)
        self.maxBytes = max(0, maxBytes)
    }

    /// The record under `key` (now the most recently used), or nil.
    public func record(forKey key: String) async -> CacheRecord? {
        state.withLock { $0.records.value(for: key) }
    }

    /// Stores `record`, then evicts the least recently used past the limits.
    public func store(_ record: CacheRecord) async {
        let size = record.approximateSize
        state.withLock { state in
            if let old = state.records.remove(record.key) { state.bytes -= old.approximateSize }
            guard size <= maxBytes, maxEntries > 0 else { return }
            state.records.set(record, for: record.key)
            state.bytes += size
            while state.records.count > maxEntries || state.bytes > maxBytes, let oldest = state.records.removeOldest() {
                state.bytes -= oldest.value.approximateSize
            }
        }
    }

    /// Removes the record under `key`.
    public func removeRecord(forKey key: String) async {
        state.withLock { state in
            if let old = state.records.remove(key) { state.bytes -= old.approximateSize }
        }
    }

    /// Removes the records whose keys satisfy `matches`.
    public func removeRecords(where matches: @escaping @Sendable (String) -> Bool) async {
        state.withLock { state in
            for key in state.records.keys where matches(key) {
                if let old = state.records.remove(key) { state.bytes -= old.approximateSize }
            }
        }
    }

    /// Removes every record.
    public func removeAll() async { state.withLock { $0 = State() } }

    /// The number of records.
    public func count() async -> Int { state.withLock { $0.records.count } }
}
