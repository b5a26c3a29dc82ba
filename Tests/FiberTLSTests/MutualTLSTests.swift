import FiberRuntime
import FiberTesting
import Testing

/// Mutual TLS: the server asks for a client certificate signed by the test CA.
@Suite(.serialized) struct MutualTLSTests {
    static func requireClientCertificate(_ tls: inout TLSConfiguration, _ pki: TestCertificates) {
        tls.requireClientCertificate = true
        tls.trustRoots = .pem(pki.bytes("root.pem"))
    }

    @Test func clientCertificateWithEncryptedKeyIsAccepted() async throws {
        try await withTLSServer(server: Self.requireClientCertificate, client: { configuration, pki in
            configuration.tls.identity = .init(certificateChain: .file(pki.path("client-chain.pem")),
                                               privateKey: .file(pki.path("client-encrypted.key")),
                                               passphrase: TestCertificates.passphrase)
        }) { client, server, pki in
            let response = try await client.get(server.url("/hello"))
            #expect(response.status == 200)
            let presented = try #require(server.tlsHandshakes.first?.peerCertificates.first)
            let clientCertificate = try CertificatePin.certificate(file: pki.path("client-chain.pem"))
            #expect(CertificatePin.certificate(der: presented) == clientCertificate)
        }
    }

    @Test func clientCertificateFromPEMBytesWithPlainKey() async throws {
        try await withTLSServer(server: Self.requireClientCertificate, client: { configuration, pki in
            configuration.tls.identity = .init(certificateChain: .pem(pki.bytes("client-chain.pem")),
                                               privateKey: .pem(pki.bytes("client.key")))
        }) { client, server, _ in
            let response = try await client.get(server.url("/hello"))
            #expect(response.status == 200)
        }
    }

    @Test func missingClientCertificateIsRefusedWithItsOwnKind() async throws {
        try await withTLSServer(server: Self.requireClientCertificate) { client, server, _ in
            await expectTLSError(.clientCertificateRequired) { _ = try await client.get(server.url("/hello")) }
            #expect(server.requestCount == 0)
            try await server.waitUntil("the server's failure") { !$0.tlsFailures.isEmpty }
            let failure = try #require(server.tlsFailures.first as? TLSError)
            #expect(failure.kind == .peerCertificateMissing)
        }
    }

    @Test func clientCertificateFromAnotherCAIsRejected() async throws {
        try await withTLSServer(server: Self.requireClientCertificate, client: { configuration, pki in
            // A certificate the server's CA did not sign (self-signed, reused as a client identity).
            configuration.tls.identity = .init(certificateChain: .file(pki.path("self-signed.pem")),
                                               privateKey: .file(pki.path("leaf.key")))
        }) { client, server, _ in
            await expectTLSError(.clientCertificateRejected) { _ = try await client.get(server.url("/hello")) }
            #expect(server.requestCount == 0)
        }
    }

    @Test func wrongPassphraseOrMissingPassphraseIsAConfigurationError() async throws {
        for passphrase in ["wrong", nil] as [String?] {
            try await withTLSServer(server: Self.requireClientCertificate, client: { configuration, pki in
                configuration.tls.identity = .init(certificateChain: .file(pki.path("client-chain.pem")),
                                                   privateKey: .file(pki.path("client-encrypted.key")), passphrase: passphrase)
            }) { client, server, _ in
                await expectTLSError(.invalidConfiguration) { _ = try await client.get(server.url("/hello")) }
            }
        }
    }

    /// A TLS 1.2 cipher list or TLS 1.3 suite list that names nothing OpenSSL can use fails every
    /// request as a configuration error, before a connection is used, and says which setting.
    @Test func unusableCipherSettingsAreAConfigurationError() async throws {
        let settings: [(inout TLSConfiguration) -> Void] = [
            { $0.cipherSuites = "TLS_NOT_A_SUITE" }, { $0.cipherList = "NOT-A-CIPHER" },
        ]
        for setting in settings {
            try await withTLSServer(client: { configuration, _ in setting(&configuration.tls) }) { client, server, _ in
                await expectTLSError(.invalidConfiguration) { _ = try await client.get(server.url("/hello")) }
                #expect(server.requestCount == 0)
            }
        }
    }

    @Test func keyThatDoesNotMatchTheCertificateIsAConfigurationError() async throws {
        try await withTLSServer(client: { configuration, pki in
            configuration.tls.identity = .init(certificateChain: .file(pki.path("client-chain.pem")),
                                               privateKey: .file(pki.path("leaf.key")))
        }) { client, server, _ in
            await expectTLSError(.invalidConfiguration) { _ = try await client.get(server.url("/hello")) }
        }
    }
}
