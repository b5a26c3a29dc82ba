import COpenSSL

/// Resumable TLS sessions per peer (`host:port`), so that a reconnect skips
/// the full handshake. Kept small: the most recent session per peer, and at
/// most `capacity` peers (the oldest entry goes first).
final class TLSSessionCache: Sendable {
    /// One `SSL_SESSION` reference, released when the entry goes.
    final class Session: @unchecked Sendable {
        // @unchecked: an SSL_SESSION is immutable once stored and
        // reference-counted by OpenSSL, which makes sharing it across threads safe.
        let pointer: OpaquePointer
        init(taking pointer: OpaquePointer) { self.pointer = pointer }
        deinit { SSL_SESSION_free(pointer) }
    }

    private struct Entries {
        var byPeer: [String: (session: Session, stamp: UInt64)] = [:]
        var clock: UInt64 = 0
    }

    private let entries = Locked(Entries())
    private let capacity: Int

    init(capacity: Int = 1024) { self.capacity = capacity }

    /// The latest session for `peer`, if any.
    func session(for peer: String) -> Session? {
        entries.withLock { $0.byPeer[peer]?.session }
    }

    /// Keeps `session` (whose reference the cache now owns) as `peer`'s latest.
    func store(_ session: Session, for peer: String) {
        let evicted: Session? = entries.withLock { entries in
            entries.clock += 1
            entries.byPeer[peer] = (session, entries.clock)
            guard entries.byPeer.count > capacity,
                  let oldest = entries.byPeer.min(by: { $0.value.stamp < $1.value.stamp })?.key else { return nil }
            return entries.byPeer.removeValue(forKey: oldest)?.session
        }
        _ = evicted  // freed here, outside the lock
    }

    /// Forgets `peer`'s session (after a failed resumption, say).
    func remove(_ peer: String) {
        let removed = entries.withLock { $0.byPeer.removeValue(forKey: peer) }
        _ = removed
    }

    /// Number of peers with a session.
    var count: Int { entries.withLock { $0.byPeer.count } }
}

/// Application-Layer Protocol Negotiation (RFC 7301) helpers.
enum ALPN {
    /// Protocol names in ALPN's wire format: each one prefixed by its length.
    static func wireFormat(_ protocols: [String]) -> [UInt8] {
        protocols.flatMap { name -> [UInt8] in
            let bytes = Array(name.utf8.prefix(255))
            return [UInt8(bytes.count)] + bytes
        }
    }

    /// The server's choice: `http/1.1` when the client offers it, else no ALPN.
    static let selectHTTP11: @convention(c) (
        OpaquePointer?, UnsafeMutablePointer<UnsafePointer<UInt8>?>?, UnsafeMutablePointer<UInt8>?,
        UnsafePointer<UInt8>?, UInt32, UnsafeMutableRawPointer?
    ) -> Int32 = { _, out, outLength, offered, offeredLength, _ in
        guard let offered, let out, let outLength else { return SSL_TLSEXT_ERR_NOACK }
        var index = 0
        while index < Int(offeredLength) {
            let length = Int(offered[index])
            let start = index + 1
            guard start + length <= Int(offeredLength) else { break }
            if length == 8, UnsafeBufferPointer(start: offered + start, count: 8).elementsEqual("http/1.1".utf8) {
                out.pointee = offered + start
                outLength.pointee = UInt8(length)
                return SSL_TLSEXT_ERR_OK
            }
            index = start + length
        }
        return SSL_TLSEXT_ERR_NOACK
    }
}
