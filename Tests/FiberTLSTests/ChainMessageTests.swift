import FiberRuntime
import FiberTesting
import Foundation
import Testing

/// A refused chain is explained by the certificate where verification
/// failed, not always by the leaf, and an issuer that was not found is
/// named, with whether the server left it out or the trust roots lack it.
/// Over real sockets against the project's HTTPS test server.
@Suite(.serialized) struct ChainMessageTests {
    /// The TLS error of fetching from `localhost` when the server presents `chain` of the hardening PKI.
    static func refusal(presenting chain: String, sourceLocation: SourceLocation = #_sourceLocation) async throws -> TLSError {
        let pki = try await HardeningCertificates.shared()
        let error = try await withTLSServer(chain: "hardening/\(chain)", key: "hardening/leaf.key", client: { configuration, _ in
            configuration.tls = HardeningCertificates.clientTrustingRoot(pki)
        }) { client, server, _ -> HTTPClientError? in
            defer { #expect(server.requestCount == 0, sourceLocation: sourceLocation) }
            do {
                _ = try await client.get("https://localhost:\(server.port)/hello")
                return nil
            } catch let error as HTTPClientError {
                return error
            }
        }
        return try #require(error?.tls, "the chain \(chain) must be refused", sourceLocation: sourceLocation)
    }

    /// The error's first sentence: what a person reads first.
    static func sentence(_ error: TLSError) -> String { error.errorDescription ?? "" }

    @Test func anExpiredIntermediateIsNamedNotTheLeaf() async throws {
        let error = try await Self.refusal(presenting: "expired-intermediate.pem")
        #expect(error.kind == .certificateExpired)
        let sentence = Self.sentence(error)
        #expect(sentence.contains("CN=Hardening Expired Intermediate CA (depth 1)") && sentence.contains("expired on"), "\(sentence)")
        #expect(!sentence.contains("CN=localhost"), "the leaf did not expire: \(sentence)")
    }

    @Test func anIntermediateThatIsNotACAIsNamed() async throws {
        let error = try await Self.refusal(presenting: "not-ca-intermediate.pem")
        #expect(error.kind == .certificateInvalid)
        let sentence = Self.sentence(error)
        #expect(sentence.contains("CN=Hardening Not A CA (depth 1)") && sentence.contains("not a CA"), "\(sentence)")
    }

    @Test func aPathLengthViolationNamesTheConstrainedCA() async throws {
        let error = try await Self.refusal(presenting: "path-length.pem")
        #expect(error.kind == .certificateInvalid)
        let sentence = Self.sentence(error)
        #expect(sentence.contains("CN=Hardening Path Zero CA (depth 2)") && sentence.contains("at most 0"), "\(sentence)")
    }

    @Test func aPrivateRootMissingFromTheTrustRootsIsNamedAsSuch() async throws {
        let error = try await Self.refusal(presenting: "private-root.pem")
        #expect(error.kind == .issuerNotFound)
        let sentence = Self.sentence(error)
        #expect(sentence.contains("CN=Hardening Private Root CA") && sentence.contains("not in your trust roots"), "\(sentence)")
        #expect(sentence.contains("CN=Hardening Private Intermediate CA (depth 1)"), "\(sentence)")
        #expect(!sentence.contains("sent no intermediate"), "the server sent its intermediate: \(sentence)")
    }

    @Test func aMissingIntermediateSaysTheServerDidNotSendIt() async throws {
        let error = try await Self.refusal(presenting: "leaf-only.pem")
        #expect(error.kind == .issuerNotFound)
        let sentence = Self.sentence(error)
        #expect(sentence.contains("sent no intermediate") && sentence.contains("CN=Hardening Intermediate CA"), "\(sentence)")
    }

    @Test func anExpiredLeafReadsInOneShortSentence() async throws {
        let error = try await Self.refusal(presenting: "leaf-expired.pem")
        #expect(error.kind == .certificateExpired)
        let sentence = Self.sentence(error)
        #expect(sentence.hasPrefix("TLS: the certificate of localhost (CN=localhost) expired on "), "\(sentence)")
        #expect(sentence.count < 100, "\(sentence.count) characters: \(sentence)")
        // The full text: the sentence first, then the detail, with neither the host nor "TLS" repeated.
        let text = "\(error)"
        #expect(text.hasPrefix(sentence + " ["), "\(text)")
        #expect(text.components(separatedBy: "of localhost").count == 2 && !text.contains("host localhost"), "the host once: \(text)")
        let transport = TransportError.tls(error, operation: "TLS handshake")
        #expect(transport.errorDescription == sentence)
        #expect("\(transport)".components(separatedBy: "TLS").count == "\(error)".components(separatedBy: "TLS").count, "\(transport)")
    }

    @Test func theHTTPClientErrorSaysTheSentenceOnceWithTheURL() async throws {
        let pki = try await HardeningCertificates.shared()
        try await withTLSServer(chain: "hardening/leaf-expired.pem", key: "hardening/leaf.key", client: { configuration, _ in
            configuration.tls = HardeningCertificates.clientTrustingRoot(pki)
        }) { client, server, _ in
            let url = "https://localhost:\(server.port)/hello"
            do {
                _ = try await client.get(url)
                Issue.record("an expired leaf must be refused")
            } catch let error as HTTPClientError {
                let sentence = try #require(error.tls?.errorDescription)
                #expect(error.errorDescription == "\(sentence) (\(url))")
                #expect(error.localizedDescription == error.errorDescription)
            }
        }
    }
}
