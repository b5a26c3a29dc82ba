import Foundation

/// Encrypts request bodies and decrypts response bodies with a provider.
///
/// Empty bodies stay empty, and streamed responses are passed through as they
/// are (decrypt them with the provider as you read them).
public final class EncryptionInterceptor: Interceptor, InlineInterceptor {
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
        try await run(request, next: InlineNext(next))
    }

    /// With no body to encrypt and responses left as they come, there is nothing to do.
    func handleAtOnce(_ request: FiberRequest) -> Bool { !decryptResponse && !encrypts(request) }

    private func encrypts(_ request: FiberRequest) -> Bool { encryptRequest && !(request.body?.isEmpty ?? true) }

    nonisolated(nonsending) func run(_ request: FiberRequest, next: InlineNext) async throws -> FiberResponse {
        // The request goes on as it came unless there is a body to encrypt: no copy of it otherwise.
        let response = if encrypts(request), let body = request.body {
            try await next(request.body(try guarded { try provider.encrypt(body) }))
        } else {
            try await next(request)
        }
        guard decryptResponse, !response.isStreamed, !response.data.isEmpty else { return response }
        return response.replacingData(try guarded { try provider.decrypt(response.data) })
    }

    private func guarded(_ body: () throws -> Data) throws(FiberError) -> Data {
        do { return try body() } catch { throw .interceptor(name: name, underlying: error) }
    }
}
