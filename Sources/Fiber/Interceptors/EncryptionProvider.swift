import Foundation

/// Encrypts and decrypts bodies: `EncryptionInterceptor` calls it for every
/// request body going out and every response body coming back.
public protocol EncryptionProvider: Sendable {
    /// The ciphertext of `data`.
    func encrypt(_ data: Data) throws -> Data
    /// The plaintext of `data`.
    /// - Throws: when `data` is not a ciphertext of this provider's key.
    func decrypt(_ data: Data) throws -> Data
}
