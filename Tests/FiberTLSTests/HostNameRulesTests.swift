import FiberRuntime
import FiberTesting
import Testing

/// The host name is checked against the certificate's subject alternative
/// names only, never its subject's common name (RFC 9525 §6.3), over real
/// sockets against the project's HTTPS test server.
@Suite(.serialized) struct HostNameRulesTests {
    /// What connecting to `localhost` gives when the server presents `chain` of the hardening PKI.
    static func connect(presenting chain: String) async throws -> Result<Int, any Error> {
        let pki = try await HardeningCertificates.shared()
        return try await withTLSServer(chain: "hardening/\(chain)", key: "hardening/leaf.key", client: { configuration, _ in
            configuration.tls = HardeningCertificates.clientTrustingRoot(pki)
        }) { client, server, _ in
            do {
                return .success(try await client.get("https://localhost:\(server.port)/hello").status)
            } catch {
                #expect(server.requestCount == 0, "nothing may be sent to an unverified server")
                return .failure(error)
            }
        }
    }

    /// CN=localhost and no subject alternative name at all.
    @Test func aNameOnlyInTheCommonNameIsRefused() async throws {
        let result = try await Self.connect(presenting: "cn-only.pem")
        await expectTLSError(.hostnameMismatch) { _ = try result.get() }
    }

    /// CN=localhost, and the only subject alternative name is IP 127.0.0.1.
    @Test func aCommonNameIsNotCheckedWhenTheAlternativeNamesHoldOnlyAnIP() async throws {
        let result = try await Self.connect(presenting: "ip-san-only.pem")
        await expectTLSError(.hostnameMismatch) { _ = try result.get() }
        if case .failure(let error as HTTPClientError) = result {
            let detail = error.tls?.detail ?? ""
            #expect(detail.contains("127.0.0.1") && detail.contains("common name is not checked"), "\(detail)")
        }
    }

    /// `w*.fiber.test` is a partial wildcard, which RFC 9525 §6.3 does not match; `*.fiber.test` still matches.
    /// The name is checked over a socket to 127.0.0.1, since it resolves nowhere.
    @Test func aPartialWildcardIsRefusedAndAWholeLabelWildcardMatches() async throws {
        let pki = try await HardeningCertificates.shared()
        for (chain, accepted) in [("partial-wildcard.pem", false), ("wildcard.pem", true)] {
            try await withTLSServer(chain: "hardening/\(chain)", key: "hardening/leaf.key") { _, server, _ in
                let stream = try await SocketStream.connect(to: [SocketAddress(ipLiteral: "127.0.0.1", port: server.port)!])
                do {
                    try await stream.startTLS(HardeningCertificates.clientTrustingRoot(pki), host: "www.fiber.test", port: server.port)
                    #expect(accepted, "\(chain) must be refused for www.fiber.test")
                    await stream.close()
                } catch let error as TLSError {
                    #expect(!accepted && error.kind == .hostnameMismatch, "\(chain): \(error)")
                }
            }
        }
    }

    @Test func aDNSAlternativeNameStillMatches() async throws {
        let result = try await Self.connect(presenting: "dns-san.pem")
        #expect(try result.get() == 200)
    }
}
