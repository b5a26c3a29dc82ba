@testable import FiberRuntime
import FiberTesting
import Testing

/// The rules of `VerifiedChainCache` without OpenSSL, and then the cache in
/// real handshakes between in-memory engines.
@Suite struct VerifiedChainCacheTests {
    static func key(_ byte: UInt8) -> VerifiedChainCache.Key {
        VerifiedChainCache.Key(digest: [UInt8](repeating: byte, count: 32))
    }

    /// `state.contains` for each of `keys` at wall-clock and monotonic time `now` (it counts hits, so it mutates).
    static func found(_ state: inout VerifiedChainCache.State, _ keys: [UInt8], at now: Int) -> [Bool] {
        keys.map { state.contains(key($0), wall: now, monotonic: now) }
    }

    static func until(_ time: Int) -> VerifiedChainCache.Expiry { .init(notAfter: time, lifetimeEnd: time) }

    @Test func anEntryHoldsUntilItsTimeOnly() {
        var state = VerifiedChainCache.State(capacity: 4)
        #expect(Self.found(&state, [1], at: 0) == [false])
        state.insert(Self.key(1), Self.until(100))
        #expect(Self.found(&state, [1, 2], at: 99) == [true, false])
        #expect(Self.found(&state, [1], at: 100) == [false])
        // Either clock ends it: the chain's notAfter on the wall clock, the lifetime on the monotonic one.
        state.insert(Self.key(2), .init(notAfter: 100, lifetimeEnd: 50))
        let answers = [(10, 49), (10, 50), (100, 10)].map { state.contains(Self.key(2), wall: $0.0, monotonic: $0.1) }
        #expect(answers == [true, false, false])
        #expect(state.hits == 2)
    }

    @Test func theOldestEntryGoesPastTheCapacity() {
        var state = VerifiedChainCache.State(capacity: 2)
        state.insert(Self.key(1), Self.until(100))
        state.insert(Self.key(2), Self.until(100))
        state.insert(Self.key(1), Self.until(200))  // an update, not a second entry
        state.insert(Self.key(3), Self.until(100))
        #expect(state.count == 2)
        #expect(Self.found(&state, [1, 2, 3], at: 0) == [false, true, true])
        for byte in 10..<200 { state.insert(Self.key(UInt8(byte)), Self.until(100)) }
        #expect(state.count == 2)
        #expect(Self.found(&state, [197, 198, 199], at: 0) == [false, true, true])
        #expect(Array(state.keysInOrder) == [Self.key(198), Self.key(199)])
    }

    /// A host reconnected after every lifetime: its entry expires and comes back, again and again.
    @Test func anEntryThatExpiresAndComesBackStaysOneEntry() {
        var state = VerifiedChainCache.State(capacity: 8)
        state.insert(Self.key(9), Self.until(50))
        for round in 1...1000 {
            let now = round * 100
            #expect(Self.found(&state, [1], at: now) == [false])  // the last insert ran out just now
            state.insert(Self.key(1), Self.until(now + 100))
        }
        #expect(state.count == 2 && Array(state.keysInOrder) == [Self.key(9), Self.key(1)])
        // The entry that went stale first is still the first to go.
        for byte in 20..<27 { state.insert(Self.key(UInt8(byte)), Self.until(200_000)) }
        #expect(Self.found(&state, [9, 1, 26], at: 100_001) == [false, true, true])
    }

    @Test func noEntryOutlivesItsChainOrTheLifetime() {
        let cache = VerifiedChainCache(lifetime: .seconds(300))
        cache.insert(Self.key(1), chainValidUntil: 1050, wall: 1000, monotonic: 7)
        #expect(cache.contains(Self.key(1), wall: 1049, monotonic: 8) && !cache.contains(Self.key(1), wall: 1050, monotonic: 8))
        cache.insert(Self.key(2), chainValidUntil: 999_999, wall: 1000, monotonic: 7)
        #expect(cache.contains(Self.key(2), wall: 1000, monotonic: 306) && !cache.contains(Self.key(2), wall: 1000, monotonic: 307))
        // Setting the wall clock back does not stretch the lifetime.
        #expect(!cache.contains(Self.key(2), wall: 10, monotonic: 400))
        cache.insert(Self.key(3), chainValidUntil: 1000, wall: 1000, monotonic: 7)
        #expect(!cache.contains(Self.key(3), wall: 999, monotonic: 7), "an expired chain is never kept")
        #expect(cache.hits == 2)
    }

    @Test func lifetimesAreWholeSecondsRoundedUpAndNeverOverflow() {
        #expect(VerifiedChainCache(lifetime: .milliseconds(1)).lifetime == 1)
        #expect(VerifiedChainCache(lifetime: .seconds(2)).lifetime == 2)
        let forever = VerifiedChainCache(lifetime: .seconds(Int64.max))
        forever.insert(Self.key(1), chainValidUntil: 2_000_000_000, wall: 1000, monotonic: 1 << 40)
        #expect(forever.contains(Self.key(1), wall: 1_999_999_999, monotonic: Int.max - 1))
    }

    // MARK: In handshakes

    static func handshake(_ client: TLSContext, host: String, serverChain: String, pki: TestCertificates) throws {
        let server = try TLSEngine(context: TLSContext(.server(identity: .init(certificateChain: .pem(pki.bytes(serverChain)), privateKey: .pem(pki.bytes("leaf.key"))))),
                                   host: nil, port: 0)
        let pair = TLSEngineTests.Pair(client: try TLSEngine(context: client, host: host, port: 443), server: server)
        try pair.handshake()
    }

    static func expectRefusal(_ kind: TLSError.Kind, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void) {
        #expect(sourceLocation: sourceLocation) { try body() } throws: { ($0 as? TLSError)?.kind == kind }
    }

    @Test func aChainIsRememberedForItsHostAndItsExactBytesOnly() async throws {
        let pki = try await TestCertificates.shared()
        let client = try TLSContext(pki.clientTrustingRoot)
        let chains = try #require(client.verifiedChains)
        for _ in 0..<3 { try Self.handshake(client, host: "localhost", serverChain: "chain.pem", pki: pki) }
        #expect(chains.count == 1 && chains.hits == 2)
        try Self.handshake(client, host: "127.0.0.1", serverChain: "chain.pem", pki: pki)
        #expect(chains.count == 2 && chains.hits == 2, "another host is verified in full")
        // Verified in full, and refused, after the good chain was remembered:
        Self.expectRefusal(.hostnameMismatch) { try Self.handshake(client, host: "other.example", serverChain: "chain.pem", pki: pki) }
        Self.expectRefusal(.hostnameMismatch) { try Self.handshake(client, host: "localhost", serverChain: "wrong-host.pem", pki: pki) }
        Self.expectRefusal(.untrustedRoot) { try Self.handshake(client, host: "localhost", serverChain: "untrusted-root.pem", pki: pki) }
        Self.expectRefusal(.certificateExpired) { try Self.handshake(client, host: "localhost", serverChain: "expired.pem", pki: pki) }
        #expect(chains.count == 2 && chains.hits == 2)
    }

    /// An IPv6 literal in a URL's brackets, or with a zone, is checked against the certificate like any
    /// other (OpenSSL takes neither form, and the check used to be dropped without a word). The test
    /// leaf names `::1`, not `::2` nor `fe80::1`.
    @Test func ipv6LiteralsInBracketsOrWithAZoneAreVerified() async throws {
        let pki = try await TestCertificates.shared()
        let client = try TLSContext(pki.clientTrustingRoot)
        for host in ["[::1]", "::1"] { try Self.handshake(client, host: host, serverChain: "chain.pem", pki: pki) }
        for host in ["[::2]", "::2", "fe80::1%eth0", "[fe80::1%25eth0]"] {
            Self.expectRefusal(.hostnameMismatch) { try Self.handshake(client, host: host, serverChain: "chain.pem", pki: pki) }
        }
        #expect(TLSEngine.bareIPLiteral("[::1]") == "::1" && TLSEngine.bareIPLiteral("fe80::1%eth0") == "fe80::1")
        #expect(TLSEngine.bareIPLiteral("127.0.0.1") == "127.0.0.1")
    }

    @Test func withoutALifetimeEveryHandshakeIsVerifiedInFull() async throws {
        let pki = try await TestCertificates.shared()
        var configuration = pki.clientTrustingRoot
        configuration.verifiedChainLifetime = nil
        let client = try TLSContext(configuration)
        #expect(client.verifiedChains == nil)
        try Self.handshake(client, host: "localhost", serverChain: "chain.pem", pki: pki)
        Self.expectRefusal(.hostnameMismatch) { try Self.handshake(client, host: "localhost", serverChain: "wrong-host.pem", pki: pki) }
        var insecure = pki.clientTrustingRoot
        insecure.verification = .insecureNoVerification
        #expect(try TLSContext(insecure).verifiedChains == nil)
    }
}
