import FiberRuntime
import FiberTesting
import Foundation
import Testing

/// A group, an HTTPS test server presenting `chain` (from the PKI) and a
/// client configured by `configure` (trusting the test root by default).
func withTLSServer<T>(
    chain: String = "chain.pem", key: String = "leaf.key",
    server configureServer: (inout TLSConfiguration, TestCertificates) -> Void = { _, _ in },
    client configureClient: (inout HTTPClient.Configuration, TestCertificates) -> Void = { _, _ in },
    _ body: (HTTPClient, TestHTTPServer, TestCertificates) async throws -> T
) async throws -> T {
    let pki = try await TestCertificates.shared()
    let group = EventLoopGroup(loopCount: 1, name: "tls-test")
    var serverTLS = TLSConfiguration.server(identity: pki.serverIdentity(chain, key: key))
    configureServer(&serverTLS, pki)
    var serverConfiguration = TestHTTPServer.Configuration()
    serverConfiguration.tls = serverTLS
    var clientConfiguration = HTTPClient.Configuration()
    clientConfiguration.tls = pki.clientTrustingRoot
    // Generous: the sanitizer runs share two cores with the rest of the suite.
    clientConfiguration.readIdleTimeout = .seconds(30)
    clientConfiguration.socket.connectTimeout = .seconds(30)
    configureClient(&clientConfiguration, pki)
    let client = HTTPClient(eventLoopGroup: group, configuration: clientConfiguration)
    let server = try await TestHTTPServer.start(on: group.loops[0], configuration: serverConfiguration)
    server.route("/hello", respond: .ok("hello over TLS"))
    do {
        let result = try await body(client, server, pki)
        await client.shutdown()
        await server.shutdown()
        try await group.shutdown()
        return result
    } catch {
        await client.shutdown()
        await server.shutdown()
        try? await group.shutdown()
        throw error
    }
}

/// Expects `body` to fail with a TLS error of `kind` (from the client or the socket).
func expectTLSError(
    _ kind: TLSError.Kind, sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> Void
) async {
    do {
        try await body()
        Issue.record("expected TLS \(kind), but it succeeded", sourceLocation: sourceLocation)
    } catch {
        let tls: TLSError? = switch error {
        case let error as HTTPClientError: error.tls
        case let error as TransportError: error.tls
        case let error as TLSError: error
        default: nil
        }
        #expect(tls?.kind == kind, "got \(error)", sourceLocation: sourceLocation)
        if let tls { #expect(!tls.detail.isEmpty, sourceLocation: sourceLocation) }
    }
}

extension HTTPClient {
    func get(_ url: String) async throws -> HTTPClientResponse {
        try await execute(HTTPClientRequest(url: url))
    }
}
