import Foundation

/// Encrypts request bodies and decrypts response bodies with a provider.
///
/// Empty bodies stay empty, and streamed responses are passed through as they
/// are (decrypt them with the provider as you read them).
public struct EncryptionInterceptor: Interceptor, InlineInterceptor {
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

    var step: InlineStep { .encryption(Boxed(self)) }

    nonisolated(nonsending) func run(_ request: FiberRequest, next: InlineNext) async throws -> FiberResponse {
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
