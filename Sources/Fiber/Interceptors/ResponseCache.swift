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
            remove(slot)
            return nil
        }
        moveToFront(slot)
        return nodes[slot].value
    }

    /// Stores `value` under `key`; returns the key evicted to make room, if any.
    @discardableResult
    mutating func store(_ value: consuming Value, for key: Key, now: Duration) -> Key? {
        guard maxEntries > 0, ttl > .zero else { return nil }
        if let slot = index[key] {
            nodes[slot].value = value
            nodes[slot].expires = now + ttl
            moveToFront(slot)
            return nil
        }
        var evicted: Key?
        if index.count >= maxEntries, let oldest = tail {
            evicted = nodes[oldest].key
            remove(oldest)
        }
        let node = Node(key: key, value: value, expires: now + ttl, newer: nil, older: nil)
        let slot: Int
        if let reused = free.popLast() {
            nodes[reused] = node
            slot = reused
        } else {
            nodes.append(node)
            slot = nodes.count - 1
        }
        index[key] = slot
        pushFront(slot)
        return evicted
    }

    /// Drops every entry whose key `matches`.
    mutating func removeAll(where matches: (Key) -> Bool) {
        for (key, slot) in index where matches(key) { remove(slot) }
    }

    mutating func removeAll() { self = ResponseCache(ttl: ttl, maxEntries: maxEntries) }

    // MARK: The recency list

    private mutating func remove(_ slot: Int) {
        unlink(slot)
        if let key = nodes[slot].key { index[key] = nil }
        nodes[slot].value = nil
        nodes[slot].key = nil
        free.append(slot)
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
