/// Chains this process has verified lately, so that a new connection to a
/// server presenting the very same chain for the very same host skips the
/// chain building and the signature checks of `X509_verify_cert`.
///
/// What stays per handshake: parsing the chain, the server's proof that it
/// holds the leaf's key (TLS CertificateVerify), pins, and every check of a
/// chain that differs by one byte. Only successes are kept, each until the
/// earliest `notAfter` of its chain or the lifetime, whichever comes first.
/// One cache per TLS context, so the trust roots and verification settings
/// are the same for every entry; the key binds the host and the exact DER
/// bytes of every certificate presented.
final class VerifiedChainCache: Sendable {
    /// The SHA-256 of the host and of each certificate's DER, in order.
    struct Key: Hashable, Sendable {
        let a: UInt64, b: UInt64, c: UInt64, d: UInt64

        init(digest: [UInt8]) {
            precondition(digest.count == 32)
            func word(_ at: Int) -> UInt64 { digest[at..<at + 8].reduce(0) { $0 << 8 | UInt64($1) } }
            (a, b, c, d) = (word(0), word(8), word(16), word(24))
        }
    }

    /// The cache's rules, a value without I/O or clock: times are seconds
    /// since the epoch, given by the caller.
    struct State: Sendable {
        let capacity: Int
        private(set) var validUntil: [Key: Int] = [:]
        /// Insertion order, for evicting the oldest entry when full.
        private var order: [Key] = []
        private var orderStart = 0

        init(capacity: Int) { self.capacity = max(1, capacity) }

        /// Whether `key` was verified and is still valid at `now`; a stale entry is dropped.
        mutating func contains(_ key: Key, at now: Int) -> Bool {
            guard let until = validUntil[key] else { return false }
            if now < until { return true }
            validUntil[key] = nil
            return false
        }

        /// Keeps `key` as verified until `until`, evicting the oldest entries past the capacity.
        mutating func insert(_ key: Key, until: Int) {
            if validUntil.updateValue(until, forKey: key) == nil { order.append(key) }
            while validUntil.count > capacity, orderStart < order.count {
                validUntil[order[orderStart]] = nil
                orderStart += 1
            }
            // Entries dropped as stale leave their keys in `order`: compact once it doubles.
            if order.count - orderStart > 2 * capacity || orderStart > capacity {
                order = order[orderStart...].filter { validUntil[$0] != nil }
                orderStart = 0
            }
        }

        var count: Int { validUntil.count }
        /// Lookups answered from the cache.
        private(set) var hits = 0

        mutating func countHit() { hits += 1 }
    }

    /// How long a verification is trusted at most, in seconds.
    let lifetime: Int
    private let state: Locked<State>

    init(lifetime: Duration, capacity: Int = 1024) {
        self.lifetime = max(0, Int(lifetime.components.seconds))
        self.state = Locked(State(capacity: capacity))
    }

    /// Whether `key` was verified and is still valid at `now` (seconds since the epoch).
    func contains(_ key: Key, at now: Int) -> Bool {
        state.withLock { state in
            guard state.contains(key, at: now) else { return false }
            state.countHit()
            return true
        }
    }

    /// Remembers `key`, verified at `now`, until the lifetime passes or its chain expires (`notAfter`).
    func insert(_ key: Key, verifiedAt now: Int, chainValidUntil notAfter: Int) {
        let until = min(now + lifetime, notAfter)
        guard until > now else { return }
        state.withLock { $0.insert(key, until: until) }
    }

    /// Number of chains held (for tests and statistics).
    var count: Int { state.withLock { $0.count } }
    /// Handshakes whose chain was accepted from the cache.
    var hits: Int { state.withLock { $0.hits } }
}
