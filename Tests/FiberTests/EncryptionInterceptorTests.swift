import Crypto
import Fiber
import FiberTesting
import Foundation
import Testing

// The guide's custom provider, as written, with `import Crypto` for CryptoKit.
struct ChaChaPolyProvider: EncryptionProvider {
    let key: SymmetricKey

    func encrypt(_ data: Data) throws -> Data {
        let sealed = try ChaChaPoly.seal(data, using: key)
        return sealed.combined
    }

    func decrypt(_ data: Data) throws -> Data {
        let box = try ChaChaPoly.SealedBox(combined: data)
        return try ChaChaPoly.open(box, using: key)
    }
}

@Suite struct EncryptionInterceptorTests {
    /// A server that decrypts what it gets and encrypts what it answers, with `provider`.
    func encryptingServer(_ provider: any EncryptionProvider) -> MockTransport {
        let mock = MockTransport()
        mock.stub { request in
            guard let body = request.httpBody, let plain = try? provider.decrypt(body),
                  let reply = try? provider.encrypt(Data("echo:".utf8) + plain) else { return .badRequest() }
            return StubResponse.ok().body(reply)
        }
        return mock
    }

    @Test(arguments: ["aes", "chacha"])
    func roundTrip(kind: String) async throws {
        let key = SymmetricKey(size: .bits256)
        let provider: any EncryptionProvider = kind == "aes" ? AESGCMEncryptionProvider(key: key) : ChaChaPolyProvider(key: key)
        let encryption = EncryptionInterceptor(provider: provider, encryptRequest: true, decryptResponse: true)
        let mock = encryptingServer(provider)
        let fiber = Fiber(baseURL: apiURL, interceptors: [encryption], transport: mock)
        let response = try await fiber.post("/secret", body: Data("hello".utf8))
        #expect(response.text == "echo:hello")
        let onTheWire = try #require(mock.lastRequest?.httpBody)
        #expect(onTheWire != Data("hello".utf8) && onTheWire.count == 5 + 28)  // nonce 12 + tag 16
    }

    @Test func wrongKeyIsAnInterceptorError() async throws {
        let mine = AESGCMEncryptionProvider(key: SymmetricKey(size: .bits256))
        let theirs = AESGCMEncryptionProvider(key: SymmetricKey(size: .bits256))
        let mock = MockTransport()
        mock.stubAll(StubResponse.ok().body(try theirs.encrypt(Data("x".utf8))))
        let (fiber, _) = (Fiber(baseURL: apiURL, interceptors: [EncryptionInterceptor(provider: mine)], transport: mock), 0)
        await expectFiberError({ if case .interceptor("encryption", _) = $0 { true } else { false } }) {
            try await fiber.get("/")
        }
    }

    @Test func directionsAndEmptyBodies() async throws {
        let provider = AESGCMEncryptionProvider(key: SymmetricKey(size: .bits128))
        let (fiber, mock) = mockFiber([EncryptionInterceptor(provider: provider, encryptRequest: false, decryptResponse: true)])
        mock.stubAll(.noContent())
        try await fiber.post("/plain", body: Data("visible".utf8))
        #expect(mock.lastRequest?.httpBody == Data("visible".utf8))
        #expect(try await fiber.get("/empty").data.isEmpty)  // nothing to decrypt
    }
}
