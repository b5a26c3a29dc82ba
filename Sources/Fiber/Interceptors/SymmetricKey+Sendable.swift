import Crypto

// @unchecked and retroactive, because swift-crypto 3 does not declare it while
// CryptoKit does, and every `EncryptionProvider` (Sendable) holds a key: the
// guide's providers, written for CryptoKit, compile unchanged with `import Crypto`.
// Safe: `SymmetricKey` is an immutable value (`let` storage of copy-on-write
// `SecureBytes`), with no mutating API; sharing it shares read-only bytes.
extension SymmetricKey: @retroactive @unchecked Sendable {}
