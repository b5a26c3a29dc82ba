import FiberRuntime
import FiberTesting
import Foundation
import Testing

/// The certificates of `Scripts/test-pki.py`, made once per test run in a
/// temporary folder: good ones, bad ones, a client identity.
struct TestPKI: Sendable {
    let folder: String

    /// The folder's `file`.
    func path(_ file: String) -> String { folder + "/" + file }

    /// The bytes of `file`.
    func bytes(_ file: String) -> [UInt8] {
        Array(FileManager.default.contents(atPath: path(file)) ?? Data())
    }

    /// A server identity: the chain in `chainFile` with the leaf key.
    func serverIdentity(_ chainFile: String = "chain.pem", key: String = "leaf.key") -> TLSConfiguration.Identity {
        .init(certificateChain: .file(path(chainFile)), privateKey: .file(path(key)))
    }

    /// A client configuration that trusts the test root (and nothing else).
    var clientTrustingRoot: TLSConfiguration {
        var tls = TLSConfiguration()
        tls.trustRoots = .pem(bytes("root.pem"))
        return tls
    }

    static let passphrase = "fiber-test-passphrase"

    struct GenerationError: Error, CustomStringConvertible { let description: String }

    /// The run's certificates, made on first use.
    static func shared() async throws -> TestPKI {
        try await generation.value.get()
    }

    private static let generation = Task<Result<TestPKI, any Error>, Never> {
        do {
            return .success(try await generate())
        } catch {
            return .failure(error)
        }
    }

    /// Runs `Scripts/test-pki.py` into a fresh temporary folder.
    private static func generate() async throws -> TestPKI {
        let folder = NSTemporaryDirectory() + "fiber-pki-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Scripts/test-pki.py").standardized.path
        let process = try ChildProcess.spawn("/usr/bin/env", arguments: ["python3", script, folder], output: folder + ".log")
        guard await process.waitForSuccess(timeout: .seconds(60)) else {
            let log = (try? String(contentsOfFile: folder + ".log", encoding: .utf8)) ?? ""
            throw GenerationError(description: "test-pki.py failed: \(log)")
        }
        return TestPKI(folder: folder)
    }
}

/// A group, an HTTPS test server presenting `chain` (from the PKI) and a
/// client configured by `configure` (trusting the test root by default).
func withTLSServer<T>(
    chain: String = "chain.pem", key: String = "leaf.key",
    server configureServer: (inout TLSConfiguration, TestPKI) -> Void = { _, _ in },
    client configureClient: (inout HTTPClient.Configuration, TestPKI) -> Void = { _, _ in },
    _ body: (HTTPClient, TestHTTPServer, TestPKI) async throws -> T
) async throws -> T {
    let pki = try await TestPKI.shared()
    let group = EventLoopGroup(loopCount: 1, name: "tls-test")
    var serverTLS = TLSConfiguration.server(identity: pki.serverIdentity(chain, key: key))
    configureServer(&serverTLS, pki)
    var serverConfiguration = TestHTTPServer.Configuration()
    serverConfiguration.tls = serverTLS
    var clientConfiguration = HTTPClient.Configuration()
    clientConfiguration.tls = pki.clientTrustingRoot
    clientConfiguration.readIdleTimeout = .seconds(10)
    clientConfiguration.socket.connectTimeout = .seconds(10)
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
