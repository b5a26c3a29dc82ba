import Crypto
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

/// Encrypts request bodies and decrypts response bodies with a provider.
///
/// Empty bodies stay empty, and streamed responses are passed through as they
/// are (decrypt them with the provider as you read them).
public struct EncryptionInterceptor: Interceptor {
    /// `"encryption"`.
    public let name = "encryption"
    private let provider: any EncryptionProvider
    private let encryptRequest: Bool
    private let decryptResponse: Bool

    /// Encrypts outgoing bodies when `encryptRequest`, decrypts incoming ones when `decryptResponse`.
    public init(provider: any EncryptionProvider, encryptRequest: Bool = true, decryptResponse: Bool = true) {
        self.provider = provider
        self.encryptRequest = encryptRequest
        self.decryptResponse = decryptResponse
    }

    /// - Throws: `FiberError.interceptor(name: "encryption", …)` with the
    ///   provider's error when a body does not encrypt or decrypt; what `next` throws.
    public func intercept(_ request: FiberRequest, next: @escaping InterceptorNext) async throws -> FiberResponse {
        var outgoing = request
        if encryptRequest, let body = request.body, !body.isEmpty {
            outgoing = outgoing.body(try guarded { try provider.encrypt(body) })
        }
        let response = try await next(outgoing)
        guard decryptResponse, !response.isStreamed, !response.data.isEmpty else { return response }
        return response.replacingData(try guarded { try provider.decrypt(response.data) })
    }

    private func guarded(_ body: () throws -> Data) throws(FiberError) -> Data {
        do { return try body() } catch { throw .interceptor(name: name, underlying: error) }
    }
}
