/// A small cache of resolved addresses with a fixed time to live, as a pure
/// value: the caller passes the current time in, so tests control expiry.
///
/// getaddrinfo does not report DNS TTLs, so every entry lives `ttl`; when
/// the cache is full, expired entries go first, then the oldest.
struct ResolverCache {
    struct Key: Hashable { let host: String; let port: Int }
    private struct Entry { let addresses: [SocketAddress]; let stored: ContinuousClock.Instant }

    let ttl: Duration
    let capacity: Int
    private var entries: [Key: Entry] = [:]

    init(ttl: Duration, capacity: Int) {
        self.ttl = ttl
        self.capacity = capacity
    }

    var count: Int { entries.count }

    /// The cached addresses for `host`:`port`, if stored less than `ttl` before `now`.
    func lookup(host: String, port: Int, now: ContinuousClock.Instant) -> [SocketAddress]? {
        guard let entry = entries[Key(host: host, port: port)], now - entry.stored < ttl else { return nil }
        return entry.addresses
    }

    mutating func store(_ addresses: [SocketAddress], host: String, port: Int, now: ContinuousClock.Instant) {
        guard capacity > 0, ttl > .zero, !addresses.isEmpty else { return }
        let key = Key(host: host, port: port)
        if entries[key] == nil, entries.count >= capacity {
            entries = entries.filter { now - $0.value.stored < ttl }
            if entries.count >= capacity, let oldest = entries.min(by: { $0.value.stored < $1.value.stored }) {
                entries[oldest.key] = nil
            }
        }
        entries[key] = Entry(addresses: addresses, stored: now)
    }

    mutating func removeAll() { entries = [:] }
}
