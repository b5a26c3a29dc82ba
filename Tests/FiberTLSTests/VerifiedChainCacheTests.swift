@testable import FiberRuntime
import FiberTesting
import Testing

/// The rules of `VerifiedChainCache` without OpenSSL, and then the cache in
/// real handshakes between in-memory engines.
@Suite struct VerifiedChainCacheTests {
    static func key(_ byte: UInt8) -> VerifiedChainCache.Key {
        VerifiedChainCache.Key(digest: [UInt8](repeating: byte, count: 32))
    }

    /// `state.contains` for each of `keys` at `now` (it may drop stale entries, so it mutates).
    static func found(_ state: inout VerifiedChainCache.State, _ keys: [UInt8], at now: Int) -> [Bool] {
        keys.map { state.contains(key($0), at: now) }
    }

    @Test func anEntryHoldsUntilItsTimeOnly() {
        var state = VerifiedChainCache.State(capacity: 4)
        #expect(Self.found(&state, [1], at: 0) == [false])
        state.insert(Self.key(1), until: 100)
        #expect(Self.found(&state, [1, 2], at: 99) == [true, false])
        #expect(Self.found(&state, [1], at: 100) == [false])
        #expect(state.count == 0, "a stale entry is dropped when found")
    }

    @Test func theOldestEntryGoesPastTheCapacity() {
        var state = VerifiedChainCache.State(capacity: 2)
        state.insert(Self.key(1), until: 100)
        state.insert(Self.key(2), until: 100)
        state.insert(Self.key(1), until: 200)  // an update, not a second entry
        state.insert(Self.key(3), until: 100)
        #expect(state.count == 2)
        #expect(Self.found(&state, [1, 2, 3], at: 0) == [false, true, true])
        for byte in 10..<200 { state.insert(Self.key(UInt8(byte)), until: 100) }
        #expect(state.count == 2)
        #expect(Self.found(&state, [197, 198, 199], at: 0) == [false, true, true])
    }

    @Test func noEntryOutlivesItsChainOrTheLifetime() {
        let cache = VerifiedChainCache(lifetime: .seconds(300))
        cache.insert(Self.key(1), verifiedAt: 1000, chainValidUntil: 1050)
        #expect(cache.contains(Self.key(1), at: 1049) && !cache.contains(Self.key(1), at: 1050))
        cache.insert(Self.key(2), verifiedAt: 1000, chainValidUntil: 999_999)
        #expect(cache.contains(Self.key(2), at: 1299) && !cache.contains(Self.key(2), at: 1300))
        cache.insert(Self.key(3), verifiedAt: 1000, chainValidUntil: 1000)
        #expect(cache.count == 0, "an expired chain is never kept")
        #expect(cache.hits == 2)
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
