import Foundation

/// Encrypts request bodies and decrypts response bodies with a provider.
///
/// Empty bodies stay empty, and streamed responses are passed through as they
/// are (decrypt them with the provider as you read them).
///
/// A provider encrypts a whole body at once, so a streamed request body (a
/// file, a stream, a multipart form) is read into memory first, up to
/// `maxStreamedBodySize` bytes; a longer one fails the request before
/// anything is sent.
public final class EncryptionInterceptor: Interceptor, InlineInterceptor {
    /// `"encryption"`.
    public let name = "encryption"
    /// The most bytes of a streamed request body read into memory to be encrypted.
    public let maxStreamedBodySize: Int
    private let provider: any EncryptionProvider
    private let encryptRequest: Bool
    private let decryptResponse: Bool

    /// Encrypts outgoing bodies when `encryptRequest`, decrypts incoming ones when `decryptResponse`;
    /// a streamed request body is read into memory up to `maxStreamedBodySize` bytes (default 16 MiB) to be encrypted.
    public init(provider: any EncryptionProvider, encryptRequest: Bool = true, decryptResponse: Bool = true,
                maxStreamedBodySize: Int = 16 * 1024 * 1024) {
        self.provider = provider
        self.encryptRequest = encryptRequest
        self.decryptResponse = decryptResponse
        self.maxStreamedBodySize = max(0, maxStreamedBodySize)
    }

    /// - Throws: `FiberError.interceptor(name: "encryption", …)` with the
    ///   provider's error when a body does not encrypt or decrypt, or with the
    ///   `HTTPClientError` (`.requestBody`) when a streamed body is longer than
    ///   `maxStreamedBodySize` or cannot be read; what `next` throws.
    public func intercept(_ request: FiberRequest, next: @escaping InterceptorNext) async throws -> FiberResponse {
        try await run(request, next: InlineNext(next))
    }

    /// With no body to encrypt and responses left as they come, there is nothing to do.
    func handleAtOnce(_ request: FiberRequest) -> Bool { !decryptResponse && !encrypts(request) }

    private func encrypts(_ request: FiberRequest) -> Bool {
        encryptRequest && (!(request.body?.isEmpty ?? true) || request.bodyStream != nil)
    }

    nonisolated(nonsending) func run(_ request: FiberRequest, next: InlineNext) async throws -> FiberResponse {
        // The request goes on as it came unless there is a body to encrypt: no copy of it otherwise.
        let response = if encrypts(request) {
            try await next(try await encrypted(request))
        } else {
            try await next(request)
        }
        guard decryptResponse, !response.isStreamed, !response.data.isEmpty else { return response }
        return response.replacingData(try guarded { try provider.decrypt(response.data) })
    }

    private func encrypted(_ request: FiberRequest) async throws(FiberError) -> FiberRequest {
        var whole = request
        if request.bodyStream != nil {
            do {
                whole = try await request.collectingBody(upTo: maxStreamedBodySize)
            } catch {
                if case .encodingError(let underlying) = error { throw .interceptor(name: name, underlying: underlying) }
                throw error
            }
        }
        guard let body = whole.body, !body.isEmpty else { return whole }
        return whole.body(try guarded { try provider.encrypt(body) })
    }

    private func guarded(_ body: () throws -> Data) throws(FiberError) -> Data {
        do { return try body() } catch { throw .interceptor(name: name, underlying: error) }
    }
}
