#if canImport(Glibc)
import Glibc
#endif

/// Chains this process has verified lately, so that a new connection to a
/// server presenting the same chain for the same host skips the chain
/// building and the signature checks of `X509_verify_cert`.
///
/// What stays per handshake: parsing the chain, the server's proof that it
/// holds the leaf's key (TLS CertificateVerify), pins, and every check of a
/// chain that differs in any certificate. Only successes are kept, each until
/// the earliest `notAfter` of its chain (wall clock) or the lifetime
/// (monotonic clock), whichever comes first. One cache per TLS context, so
/// the trust roots and verification settings are the same for every entry;
/// the key binds the host and every certificate presented, in order.
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

    /// When an entry stops counting: whichever of the two comes first.
    struct Expiry: Sendable, Equatable {
        /// The chain's earliest `notAfter`, in wall-clock seconds since the epoch.
        var notAfter: Int
        /// The end of the lifetime, in monotonic seconds (setting the wall clock back cannot stretch it).
        var lifetimeEnd: Int

        func isValid(wall: Int, monotonic: Int) -> Bool { wall < notAfter && monotonic < lifetimeEnd }
    }

    /// The cache's rules, a value without I/O or clock: the caller gives the times.
    ///
    /// Entries leave only by eviction, oldest first, so `order[orderStart...]`
    /// always holds exactly the keys of `entries`; an expired entry stays
    /// (never answering) until it is overwritten or evicted.
    struct State: Sendable {
        let capacity: Int
        private(set) var entries: [Key: Expiry] = [:]
        private var order: [Key] = []
        private var orderStart = 0
        /// Lookups answered from the cache.
        private(set) var hits = 0

        init(capacity: Int) { self.capacity = max(1, capacity) }

        /// Whether `key` was verified and still counts at these times.
        mutating func contains(_ key: Key, wall: Int, monotonic: Int) -> Bool {
            guard let expiry = entries[key], expiry.isValid(wall: wall, monotonic: monotonic) else { return false }
            hits += 1
            return true
        }

        /// Keeps `key` as verified until `expiry`, evicting the oldest entries past the capacity.
        mutating func insert(_ key: Key, _ expiry: Expiry) {
            if entries.updateValue(expiry, forKey: key) == nil { order.append(key) }
            while entries.count > capacity {
                entries[order[orderStart]] = nil
                orderStart += 1
            }
            if orderStart >= capacity {
                order.removeFirst(orderStart)
                orderStart = 0
            }
        }

        var count: Int { entries.count }
        /// Keys held in insertion order (for tests of the bookkeeping).
        var keysInOrder: ArraySlice<Key> { order[orderStart...] }
    }

    /// How long a verification is trusted at most, in whole seconds (rounded up).
    let lifetime: Int
    private let state: Locked<State>

    init(lifetime: Duration, capacity: Int = 1024) {
        let (seconds, attoseconds) = lifetime.components
        self.lifetime = max(0, Int(clamping: seconds) &+ (attoseconds > 0 ? 1 : 0))
        self.state = Locked(State(capacity: capacity))
    }

    /// Whether `key` was verified and still counts now.
    func contains(_ key: Key) -> Bool {
        contains(key, wall: Self.wallClock(), monotonic: Self.monotonicClock())
    }

    func contains(_ key: Key, wall: Int, monotonic: Int) -> Bool {
        state.withLock { $0.contains(key, wall: wall, monotonic: monotonic) }
    }

    /// Remembers `key`, verified now, until the lifetime passes or its chain expires (`notAfter`).
    func insert(_ key: Key, chainValidUntil notAfter: Int) {
        insert(key, chainValidUntil: notAfter, wall: Self.wallClock(), monotonic: Self.monotonicClock())
    }

    func insert(_ key: Key, chainValidUntil notAfter: Int, wall: Int, monotonic: Int) {
        guard notAfter > wall, lifetime > 0 else { return }
        // Added without overflow for any lifetime: `Duration.seconds(.max)` means "until notAfter".
        let lifetimeEnd = monotonic > Int.max - lifetime ? Int.max : monotonic + lifetime
        state.withLock { $0.insert(key, Expiry(notAfter: notAfter, lifetimeEnd: lifetimeEnd)) }
    }

    /// Number of chains held, expired ones included until they are replaced or evicted.
    var count: Int { state.withLock { $0.count } }
    /// Handshakes whose chain was accepted from the cache.
    var hits: Int { state.withLock { $0.hits } }

    static func wallClock() -> Int { time(nil) }

    static func monotonicClock() -> Int {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return now.tv_sec
    }
}
