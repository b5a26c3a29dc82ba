import Crypto

/// SHA-1 through swift-crypto, for `Sec-WebSocket-Accept` only (the
/// handshake's use of SHA-1 is a checksum, not a security property).
enum SHA1Digest {
    static func hash(_ bytes: [UInt8]) -> [UInt8] {
        Array(Insecure.SHA1.hash(data: bytes))
    }
}
