/// A least-recently-used map as a pure value: reads mark an entry used, and
/// the entry used longest ago is the first to go. The memory tier of
/// `SharedCacheStore`, and the index of its disk tier.
///
/// Every operation is O(1) (`removeAll(where:)` is O(n)): the recency order is
/// a doubly linked list threaded through an array of slots by index, freed
/// slots are reused, and a freed slot drops its value at once.
struct LRUCache<Value: Sendable>: Sendable {
    private struct Slot: Sendable {
        var key: String
        var value: Value?
        var newer: Int?
        var older: Int?
    }

    private var slots: [Slot] = []
    private var freeSlots: [Int] = []
    private var slotOfKey: [String: Int] = [:]
    /// The most recently used slot.
    private var newest: Int?
    /// The least recently used slot.
    private var oldest: Int?

    /// An empty cache.
    init() {}

    /// The number of entries.
    var count: Int { slotOfKey.count }

    /// Every key, in no order.
    var keys: [String] { Array(slotOfKey.keys) }

    /// The value under `key`, marked as just used.
    mutating func value(for key: String) -> Value? {
        guard let slot = slotOfKey[key] else { return nil }
        unlink(slot)
        pushNewest(slot)
        return slots[slot].value
    }

    /// The value under `key`, without marking it used.
    func peek(_ key: String) -> Value? { slotOfKey[key].flatMap { slots[$0].value } }

    /// Stores `value` under `key` as just used.
    mutating func set(_ value: Value, for key: String) {
        if let slot = slotOfKey[key] {
            slots[slot].value = value
            unlink(slot)
            pushNewest(slot)
            return
        }
        let entry = Slot(key: key, value: value)
        let slot: Int
        if let reused = freeSlots.popLast() {
            slots[reused] = entry
            slot = reused
        } else {
            slots.append(entry)
            slot = slots.count - 1
        }
        slotOfKey[key] = slot
        pushNewest(slot)
    }

    /// Removes and returns the least recently used entry, if any.
    mutating func removeOldest() -> (key: String, value: Value)? {
        guard let slot = oldest, let value = slots[slot].value else { return nil }
        let key = slots[slot].key
        release(slot)
        return (key, value)
    }

    /// Removes the least recently used entries until no more than `limit` remain; returns their keys.
    @discardableResult
    mutating func evict(toCount limit: Int) -> [String] {
        var evicted: [String] = []
        while count > max(0, limit), let removed = removeOldest() { evicted.append(removed.key) }
        return evicted
    }

    /// Removes the entry under `key`, returning it.
    @discardableResult
    mutating func remove(_ key: String) -> Value? {
        guard let slot = slotOfKey[key] else { return nil }
        let value = slots[slot].value
        release(slot)
        return value
    }

    /// Removes every entry whose key satisfies `matches`, returning their keys.
    @discardableResult
    mutating func removeAll(where matches: (String) -> Bool) -> [String] {
        let doomed = slotOfKey.keys.filter(matches)
        for key in doomed { remove(key) }
        return doomed
    }

    private mutating func release(_ slot: Int) {
        unlink(slot)
        slotOfKey[slots[slot].key] = nil
        slots[slot].value = nil
        slots[slot].key = ""
        freeSlots.append(slot)
    }

    private mutating func unlink(_ slot: Int) {
        let newer = slots[slot].newer, older = slots[slot].older
        if let newer { slots[newer].older = older } else { newest = older }
        if let older { slots[older].newer = newer } else { oldest = newer }
        slots[slot].newer = nil
        slots[slot].older = nil
    }

    private mutating func pushNewest(_ slot: Int) {
        slots[slot].older = newest
        slots[slot].newer = nil
        if let newest { slots[newest].newer = slot }
        newest = slot
        if oldest == nil { oldest = slot }
    }
}
