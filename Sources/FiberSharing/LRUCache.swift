/// A least-recently-used map as a pure value: reads mark an entry used, and
/// inserting past the limit evicts the entries used longest ago. The memory
/// tier of `SharedCacheStore`, and the index of its disk tier.
///
/// Reads and writes are O(1); eviction scans for the oldest use, O(n), and
/// runs only when a limit is exceeded.
struct LRUCache<Value: Sendable>: Sendable {
    private struct Slot: Sendable {
        var value: Value
        var lastUse: UInt64
    }

    private var slots: [String: Slot] = [:]
    private var tick: UInt64 = 0

    /// An empty cache.
    init() {}

    /// The number of entries.
    var count: Int { slots.count }

    /// Every key, in no order.
    var keys: [String] { Array(slots.keys) }

    /// The value under `key`, marked as just used.
    mutating func value(for key: String) -> Value? {
        guard slots[key] != nil else { return nil }
        tick += 1
        slots[key]?.lastUse = tick
        return slots[key]?.value
    }

    /// The value under `key`, without marking it used.
    func peek(_ key: String) -> Value? { slots[key]?.value }

    /// Stores `value` under `key` as just used.
    mutating func set(_ value: Value, for key: String) {
        tick += 1
        slots[key] = Slot(value: value, lastUse: tick)
    }

    /// Removes and returns the least recently used entry, if any.
    mutating func removeOldest() -> (key: String, value: Value)? {
        guard let oldest = slots.min(by: { $0.value.lastUse < $1.value.lastUse }) else { return nil }
        slots[oldest.key] = nil
        return (oldest.key, oldest.value.value)
    }

    /// Removes the least recently used entries until no more than `limit` remain; returns their keys.
    @discardableResult
    mutating func evict(toCount limit: Int) -> [String] {
        var evicted: [String] = []
        while slots.count > max(0, limit), let oldest = removeOldest() { evicted.append(oldest.key) }
        return evicted
    }

    /// Removes the entry under `key`, returning it.
    @discardableResult
    mutating func remove(_ key: String) -> Value? { slots.removeValue(forKey: key)?.value }

    /// Removes every entry whose key satisfies `matches`, returning their keys.
    @discardableResult
    mutating func removeAll(where matches: (String) -> Bool) -> [String] {
        let doomed = slots.keys.filter(matches)
        for key in doomed { slots[key] = nil }
        return doomed
    }
}
