/// A map that remembers the order of use, as a pure value: reading or storing
/// an entry marks it used, and the entry used longest ago is the first to go.
/// The one LRU of the library: `CacheInterceptor`'s store, and the memory tier
/// and disk index of the shared cache. It holds no limit of its own: each user
/// evicts to the limit it has at that moment.
///
/// Every operation is O(1) except the `removeAll(where:)` scan: entries live in
/// an array threaded by a doubly linked recency list, found through a key index;
/// freed slots are reused and drop their value at once, so a full map allocates
/// nothing to store.
package struct LRUMap<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private struct Slot: Sendable {
        var key: Key?
        var value: Value?
        var newer: Int?
        var older: Int?
    }

    private var slots: [Slot] = []
    private var slotOfKey: [Key: Int] = [:]
    private var freeSlots: [Int] = []
    /// The most recently used slot.
    private var newest: Int?
    /// The least recently used slot.
    private var oldest: Int?

    /// An empty map.
    package init() {}

    /// The number of entries.
    package var count: Int { slotOfKey.count }

    /// Every key, in no order.
    package var keys: [Key] { Array(slotOfKey.keys) }

    /// The value under `key`, marked as just used.
    package mutating func value(for key: Key) -> Value? {
        guard let slot = slotOfKey[key] else { return nil }
        markUsed(slot)
        return slots[slot].value
    }

    /// The value under `key`, without marking it used.
    package func peek(_ key: Key) -> Value? { slotOfKey[key].flatMap { slots[$0].value } }

    /// Stores `value` under `key` as just used. Both are consumed, so that they
    /// move into their slot rather than being copied (an old entry's memory is
    /// cold, and each extra retain of it is a cache miss).
    package mutating func set(_ value: consuming Value, for key: consuming Key) {
        if let slot = slotOfKey[copy key] {
            slots[slot].value = value
            markUsed(slot)
            return
        }
        let slot: Int
        if let reused = freeSlots.popLast() {
            slot = reused
        } else {
            slots.append(Slot(key: nil, value: nil, newer: nil, older: nil))
            slot = slots.count - 1
        }
        // Built in the assignment, so that the value moves into the slot.
        slots[slot] = Slot(key: copy key, value: value, newer: nil, older: nil)
        slotOfKey[key] = slot
        pushNewest(slot)
    }

    /// Removes and returns the least recently used entry, if any.
    package mutating func removeOldest() -> (key: Key, value: Value)? {
        guard let slot = oldest else { return nil }
        return release(slot)
    }

    /// Removes the least recently used entries until no more than `limit` remain; returns their keys, oldest first.
    @discardableResult
    package mutating func evict(toCount limit: Int) -> [Key] {
        var evicted: [Key] = []
        while count > max(0, limit), let removed = removeOldest() { evicted.append(removed.key) }
        return evicted
    }

    /// Removes the entry under `key`, returning its value.
    @discardableResult
    package mutating func remove(_ key: Key) -> Value? {
        guard let slot = slotOfKey[key] else { return nil }
        return release(slot)?.value
    }

    /// Removes every entry that `matches`, returning their keys.
    @discardableResult
    package mutating func removeAll(where matches: (Key, Value) -> Bool) -> [Key] {
        let doomed = slotOfKey.compactMap { key, slot in slots[slot].value.flatMap { matches(key, $0) ? key : nil } }
        for key in doomed { remove(key) }
        return doomed
    }

    /// Removes every entry.
    package mutating func removeAll() { self = LRUMap() }

    // MARK: The recency list

    /// Frees `slot`, returning what it held.
    private mutating func release(_ slot: Int) -> (key: Key, value: Value)? {
        unlink(slot)
        let key = slots[slot].key.take()
        let value = slots[slot].value.take()
        if let key { slotOfKey[key] = nil }
        freeSlots.append(slot)
        guard let key, let value else { return nil }
        return (key, value)
    }

    private mutating func markUsed(_ slot: Int) {
        guard newest != slot else { return }
        unlink(slot)
        pushNewest(slot)
    }

    private mutating func pushNewest(_ slot: Int) {
        slots[slot].older = newest
        slots[slot].newer = nil
        if let newest { slots[newest].newer = slot }
        newest = slot
        if oldest == nil { oldest = slot }
    }

    private mutating func unlink(_ slot: Int) {
        let (newer, older) = (slots[slot].newer, slots[slot].older)
        if let newer { slots[newer].older = older } else { newest = older }
        if let older { slots[older].newer = newer } else { oldest = newer }
        slots[slot].newer = nil
        slots[slot].older = nil
    }
}
