/// The cache's rules as a pure value: entries expire `ttl` after they were
/// stored, and past `maxEntries` the least recently used one goes.
/// Time is passed in (`now`), so tests need no clock.
struct ResponseCache<Value>: Sendable where Value: Sendable {
    private struct Entry: Sendable {
        var value: Value
        var expires: Duration
        var lastUse: UInt64
    }

    let ttl: Duration
    let maxEntries: Int
    private var entries: [String: Entry] = [:]
    private var useCounter: UInt64 = 0

    init(ttl: Duration, maxEntries: Int) {
        self.ttl = ttl
        self.maxEntries = max(0, maxEntries)
    }

    var count: Int { entries.count }

    /// The fresh value under `key`, marked as just used; an expired one is dropped.
    mutating func value(for key: String, now: Duration) -> Value? {
        guard let entry = entries[key] else { return nil }
        guard now < entry.expires else {
            entries[key] = nil
            return nil
        }
        useCounter += 1
        entries[key]?.lastUse = useCounter
        return entry.value
    }

    /// Stores `value` under `key`; returns the key evicted to make room, if any.
    @discardableResult
    mutating func store(_ value: Value, for key: String, now: Duration) -> String? {
        guard maxEntries > 0, ttl > .zero else { return nil }
        useCounter += 1
        entries[key] = Entry(value: value, expires: now + ttl, lastUse: useCounter)
        guard entries.count > maxEntries else { return nil }
        // Expired entries go first; else the least recently used. O(n) only when full.
        let victim = entries.min { a, b in
            let aExpired = a.value.expires <= now, bExpired = b.value.expires <= now
            if aExpired != bExpired { return aExpired }
            return a.value.lastUse < b.value.lastUse
        }?.key
        if let victim { entries[victim] = nil }
        return victim
    }

    /// Drops every entry whose key `matches`.
    mutating func removeAll(where matches: (String) -> Bool) {
        for key in entries.keys where matches(key) { entries[key] = nil }
    }

    mutating func removeAll() { entries.removeAll() }
}
