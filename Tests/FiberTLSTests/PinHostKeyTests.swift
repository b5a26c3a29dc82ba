import FiberRuntime
import FiberTesting
import Testing

/// Pins are found for their host however its key is written (capitals, a
/// trailing dot, an IPv6 literal in brackets or in another textual form),
/// and a key that can never match a host is a configuration error: a pin set
/// is never skipped without a word.
@Suite(.serialized) struct PinHostKeyTests {
    /// A pin that matches no certificate.
    static let wrongPin = try! CertificatePin.publicKeySHA256(base64: String(repeating: "C", count: 43) + "=")

    /// Fetches `path` from `host` (`localhost`, or an IP literal the server listens on) with `pins`.
    static func fetch(_ host: String, urlHost: String? = nil, pins: [String: [CertificatePin]]) async throws -> Result<Int, any Error> {
        let pki = try await TestCertificates.shared()
        let group = EventLoopGroup(loopCount: 1, name: "pin-test")
        var serverConfiguration = TestHTTPServer.Configuration()
        serverConfiguration.tls = .server(identity: pki.serverIdentity())
        let server = try await TestHTTPServer.start(host: host == "localhost" ? "127.0.0.1" : host, on: group.loops[0],
                                                    configuration: serverConfiguration)
        server.route("/hello", respond: .ok("hello"))
        var configuration = HTTPClient.Configuration()
        configuration.tls = pki.clientTrustingRoot
        configuration.tls.pins = pins
        let client = HTTPClient(eventLoopGroup: group, configuration: configuration)
        let name = urlHost ?? (host.contains(":") ? "[\(host)]" : host)
        let result: Result<Int, any Error>
        do {
            result = .success(try await client.get("https://\(name):\(server.port)/hello").status)
        } catch {
            result = .failure(error)
        }
        if case .failure = result { #expect(server.requestCount == 0, "nothing may be sent when pins refuse the server") }
        await client.shutdown()
        await server.shutdown()
        try await group.shutdown()
        return result
    }

    @Test func aKeyWithCapitalsPinsItsHost() async throws {
        let refused = try await Self.fetch("localhost", pins: ["LOCALHOST": [Self.wrongPin]])
        await expectTLSError(.pinMismatch) { _ = try refused.get() }
        let pki = try await TestCertificates.shared()
        let right = try CertificatePin.certificate(file: pki.path("intermediate.der"))
        #expect(try await Self.fetch("localhost", pins: ["LocalHost": [right]]).get() == 200)
    }

    @Test func aKeyWithATrailingDotOrAURLWithCapitalsFindsItsPins() async throws {
        for (key, urlHost) in [("localhost.", "localhost"), ("localhost", "LOCALHOST"), ("LocalHost.", "LOCALHOST")] {
            let refused = try await Self.fetch("localhost", urlHost: urlHost, pins: [key: [Self.wrongPin]])
            await expectTLSError(.pinMismatch) { _ = try refused.get() }
        }
    }

    @Test func ipv6KeysInBracketsOrLongFormPinTheirAddress() async throws {
        for key in ["[::1]", "0:0:0:0:0:0:0:1", "[0::1]"] {
            let refused = try await Self.fetch("::1", pins: [key: [Self.wrongPin]])
            await expectTLSError(.pinMismatch) { _ = try refused.get() }
        }
    }

    @Test func aKeyThatCanNeverMatchAHostIsAConfigurationError() async throws {
        for key in ["localhost:443", "https://localhost", "", "local host", "*.localhost"] {
            let refused = try await Self.fetch("localhost", pins: [key: [Self.wrongPin]])
            await expectTLSError(.invalidConfiguration) { _ = try refused.get() }
            if case .failure(let error as HTTPClientError) = refused {
                #expect(error.tls?.detail.contains("\"\(key)\"") == true, "the key is named: \(error)")
            }
        }
    }
}
