import FiberRuntime
import FiberTesting
import Foundation
import Testing

/// An origin (plain, or HTTPS with the test certificates) answering `/hello`.
func withOrigin<T>(tls: Bool = false, _ body: (TestHTTPServer, TestCertificates) async throws -> T) async throws -> T {
    let pki = try await TestCertificates.shared()
    var configuration = TestHTTPServer.Configuration()
    if tls { configuration.tls = .server(identity: pki.serverIdentity()) }
    let server = try await TestHTTPServer.start(configuration: configuration)
    server.route("/hello", respond: .ok("hello"))
    do {
        let result = try await body(server, pki)
        await server.shutdown()
        return result
    } catch {
        await server.shutdown()
        throw error
    }
}

/// `body` with a proxy started by `start`, stopped (by its PID) afterwards.
func withProxy<T>(_ start: () async throws -> ProxyProcess, _ body: (ProxyProcess) async throws -> T) async throws -> T {
    let proxy = try await start()
    do {
        let result = try await body(proxy)
        await proxy.stop()
        return result
    } catch {
        await proxy.stop()
        throw error
    }
}

/// `body` with `Scripts/socks5_peer.py` started with `arguments`, killed by its PID afterwards.
func withSOCKSPeer<T>(_ arguments: [String] = [], _ body: (PythonPeer) async throws -> T) async throws -> T {
    let peer = try PythonPeer(script: "socks5_peer.py", arguments: arguments)
    defer { peer.stop() }
    return try await body(peer)
}

/// The `ProxyFailure` that `body` fails with, or nil (recorded) when it fails otherwise or not at all.
func proxyFailure(sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> Void) async -> ProxyFailure? {
    do {
        try await body()
        Issue.record("expected a proxy failure, but it succeeded", sourceLocation: sourceLocation)
    } catch let error as HTTPClientError {
        #expect(error.kind == .proxy, "\(error)", sourceLocation: sourceLocation)
        return error.proxy
    } catch {
        Issue.record("expected HTTPClientError .proxy, got \(error)", sourceLocation: sourceLocation)
    }
    return nil
}
