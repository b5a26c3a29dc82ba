import Crypto
import Foundation

/// AES-256-GCM (swift-crypto): a random nonce per message, the output being
/// nonce, ciphertext and tag together (`AES.GCM.SealedBox.combined`).
public struct AESGCMEncryptionProvider: EncryptionProvider {
    private let key: SymmetricKey

    /// Encrypts with `key` (128, 192 or 256 bits).
    public init(key: SymmetricKey) { self.key = key }

    /// - Throws: swift-crypto's `CryptoKitError` for a bad key size.
    public func encrypt(_ data: Data) throws -> Data {
        guard let combined = try AES.GCM.seal(data, using: key).combined else {
            throw CryptoKitError.incorrectParameterSize  // only for non-standard nonces, which are never used here
        }
        return combined
    }

    /// - Throws: `CryptoKitError.authenticationFailure` for a tampered
    ///   message or another key; a size error for a truncated one.
    public func decrypt(_ data: Data) throws -> Data {
        try AES.GCM.open(AES.GCM.SealedBox(combined: data), using: key)
    }
}
