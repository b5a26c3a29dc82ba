/// The cache's rules as a pure value: entries expire `ttl` after they were
/// stored, and past `maxEntries` the least recently used one goes.
/// Time is passed in (`now`), so tests need no clock.
///
/// Every operation is O(1): entries live in an array threaded by a doubly
/// linked recency list (most recent at `head`), found through a key index;
/// freed slots are reused, so a full cache allocates nothing to store.
struct ResponseCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private struct Node: Sendable {
        var key: Key?
        var value: Value?
        var expires: Duration
        var newer: Int?
        var older: Int?
    }

    let ttl: Duration
    let maxEntries: Int
    private var nodes: [Node] = []
    private var index: [Key: Int] = [:]
    private var free: [Int] = []
    private var head: Int?  // most recently used
    private var tail: Int?  // least recently used

    init(ttl: Duration, maxEntries: Int) {
        self.ttl = ttl
        self.maxEntries = max(0, maxEntries)
    }

    var count: Int { index.count }

    /// The fresh value under `key`, marked as just used; an expired one is dropped.
    mutating func value(for key: Key, now: Duration) -> Value? {
        guard let slot = index[key] else { return nil }
        guard now < nodes[slot].expires else {
            _ = remove(slot)
            return nil
        }
        moveToFront(slot)
        return nodes[slot].value
    }

    /// Stores `value` under `key`; returns the key evicted to make room, if any.
    /// (Both are consumed and the evicted key is moved out, not copied: an old
    /// entry's memory is cold, and every extra retain or release of it is a miss.)
    @discardableResult
    mutating func store(_ value: consuming Value, for key: consuming Key, now: Duration) -> Key? {
        guard maxEntries > 0, ttl > .zero else { return nil }
        if let slot = index[key] {
            nodes[slot].value = value
            nodes[slot].expires = now + ttl
            moveToFront(slot)
            return nil
        }
        var evicted: Key?
        if index.count >= maxEntries, let oldest = tail { evicted = remove(oldest) }
        let slot: Int
        if let reused = free.popLast() {
            slot = reused
        } else {
            nodes.append(Node(key: nil, value: nil, expires: .zero, newer: nil, older: nil))
            slot = nodes.count - 1
        }
        // Built in the assignment, so that it moves into its slot.
        nodes[slot] = Node(key: copy key, value: value, expires: now + ttl, newer: nil, older: nil)
        index[key] = slot
        pushFront(slot)
        return evicted
    }

    /// Drops the entry under `key`, if any.
    mutating func removeValue(for key: Key) {
        if let slot = index[key] { _ = remove(slot) }
    }

    /// Drops every entry whose key and value `match`.
    mutating func removeAll(where matches: (Key, Value) -> Bool) {
        for (key, slot) in index where nodes[slot].value.map({ matches(key, $0) }) ?? false { _ = remove(slot) }
    }

    mutating func removeAll() { self = ResponseCache(ttl: ttl, maxEntries: maxEntries) }

    // MARK: The recency list

    /// Frees `slot`; returns its key.
    private mutating func remove(_ slot: Int) -> Key? {
        unlink(slot)
        let key = nodes[slot].key.take()
        if let key { index[key] = nil }
        nodes[slot].value = nil
        free.append(slot)
        return key
    }

    private mutating func moveToFront(_ slot: Int) {
        guard head != slot else { return }
        unlink(slot)
        pushFront(slot)
    }

    private mutating func pushFront(_ slot: Int) {
        nodes[slot].older = head
        nodes[slot].newer = nil
        if let head { nodes[head].newer = slot }
        head = slot
        if tail == nil { tail = slot }
    }

    private mutating func unlink(_ slot: Int) {
        let (newer, older) = (nodes[slot].newer, nodes[slot].older)
        if let newer { nodes[newer].older = older } else { head = older }
        if let older { nodes[older].newer = newer } else { tail = newer }
        nodes[slot].newer = nil
        nodes[slot].older = nil
    }
}
