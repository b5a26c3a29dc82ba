import FiberRuntime
import FiberTesting
import Testing

/// Session resumption per host, and the end of a TLS stream: `close_notify`
/// makes a close-delimited body complete; its absence makes it a truncation.
@Suite(.serialized) struct ResumptionAndShutdownTests {
    static let closing: HTTPHeaders = ["Connection": "close"]

    @Test func reconnectResumesTheSession() async throws {
        try await withTLSServer { client, server, _ in
            for _ in 1...3 {
                let response = try await client.execute(HTTPClientRequest(url: server.url("/hello"), headers: Self.closing))
                #expect(response.status == 200)
            }
            let handshakes = server.tlsHandshakes
            #expect(handshakes.count == 3)
            #expect(handshakes.map(\.resumedSession) == [false, true, true])
        }
    }

    @Test func resumptionCanBeTurnedOff() async throws {
        try await withTLSServer(client: { configuration, _ in configuration.tls.sessionResumption = false }) { client, server, _ in
            for _ in 1...2 {
                _ = try await client.execute(HTTPClientRequest(url: server.url("/hello"), headers: Self.closing))
            }
            #expect(server.tlsHandshakes.map(\.resumedSession) == [false, false])
        }
    }

    @Test func resumptionWorksOverTLS12() async throws {
        try await withTLSServer(server: { tls, _ in tls.maximumVersion = .tls12 }) { client, server, _ in
            for _ in 1...2 {
                _ = try await client.execute(HTTPClientRequest(url: server.url("/hello"), headers: Self.closing))
            }
            #expect(server.tlsHandshakes.map(\.resumedSession) == [false, true])
        }
    }

    @Test func closeDelimitedBodyEndedByCloseNotifyIsComplete() async throws {
        let pki = try await TestCertificates.shared()
        let peer = try await startPythonTLSServer(pki: pki, body: "all of it", closeNotify: true)
        defer { Task { await peer.stop() } }
        var configuration = HTTPClient.Configuration()
        configuration.tls = pki.clientTrustingRoot
        let client = HTTPClient(eventLoopGroup: .shared, configuration: configuration)
        let response = try await client.get("https://127.0.0.1:\(peer.port)/")
        #expect(String(decoding: response.body, as: UTF8.self) == "all of it")
        await client.shutdown()
    }

    @Test func closeDelimitedBodyCutWithoutCloseNotifyIsATruncation() async throws {
        let pki = try await TestCertificates.shared()
        let peer = try await startPythonTLSServer(pki: pki, body: "partial", closeNotify: false)
        defer { Task { await peer.stop() } }
        var configuration = HTTPClient.Configuration()
        configuration.tls = pki.clientTrustingRoot
        let client = HTTPClient(eventLoopGroup: .shared, configuration: configuration)
        await expectTLSError(.truncated) { _ = try await client.get("https://127.0.0.1:\(peer.port)/") }
        await client.shutdown()
    }

    @Test func streamSendsCloseNotifyOnClose() async throws {
        // The server's side of a stream closed by the client ends cleanly (close_notify), not as a truncation.
        let pki = try await TestCertificates.shared()
        let loop = EventLoopGroup.shared.next()
        let listener = try await SocketListener.listen(host: "127.0.0.1", port: 0, on: loop)
        let serverConfiguration = TLSConfiguration.server(identity: pki.serverIdentity())
        let served = Task { () -> [UInt8] in
            for try await stream in listener.connections {
                _ = try await stream.startTLS(serverConfiguration, host: nil)
                return try await stream.readAll()
            }
            return []
        }
        let stream = try await SocketStream.connect(host: "127.0.0.1", port: listener.port, on: loop)
        let info = try await stream.startTLS(pki.clientTrustingRoot, host: "127.0.0.1", port: listener.port)
        #expect(info.peerCertificates.count == 2)
        try await stream.write(Array("bytes, then the end".utf8))
        await stream.close()
        #expect(String(decoding: try await served.value, as: UTF8.self) == "bytes, then the end")
        await listener.close()
    }
}
