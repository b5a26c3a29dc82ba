@testable import FiberRuntime
import FiberTesting
import Testing

/// The TLS engine without sockets: a client and a server engine pass their
/// bytes to each other in memory.
@Suite(.serialized) struct TLSEngineTests {
    struct Pair {
        let client: TLSEngine
        let server: TLSEngine

        /// Moves bytes both ways until neither side has anything to send.
        func pump() {
            while client.hasOutput || server.hasOutput {
                client.drainOutput { server.feed($0) }
                server.drainOutput { client.feed($0) }
            }
        }

        /// Handshakes both sides to the end.
        func handshake() throws {
            for _ in 0..<10 {
                let clientDone = try client.handshake()
                pump()
                let serverDone = try server.handshake()
                pump()
                if clientDone && serverDone { return }
            }
            Issue.record("the handshake did not finish")
        }
    }

    static func pair(_ configure: (inout TLSConfiguration) -> Void = { _ in }) async throws -> Pair {
        let pki = try await TestCertificates.shared()
        var serverConfiguration = TLSConfiguration.server(identity: .init(certificateChain: .pem(pki.bytes("chain.pem")),
                                                                          privateKey: .pem(pki.bytes("leaf.key"))))
        serverConfiguration.maximumVersion = .tls13
        var clientConfiguration = pki.clientTrustingRoot
        configure(&clientConfiguration)
        let client = try TLSEngine(context: try TLSContext(clientConfiguration), host: "localhost", port: 1)
        let server = try TLSEngine(context: try TLSContext(serverConfiguration), host: nil, port: 0)
        return Pair(client: client, server: server)
    }

    static func read(_ engine: TLSEngine) throws -> (bytes: [UInt8], end: TLSEngine.ReadEnd) {
        var bytes: [UInt8] = []
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1024, alignment: 1)
        defer { buffer.deallocate() }
        let end = try engine.readPlaintext(into: buffer) { bytes += $0; return true }
        return (bytes, end)
    }

    @Test func handshakeDataAndCloseNotifyInMemory() async throws {
        let pair = try await Self.pair()
        try pair.handshake()
        #expect(pair.client.negotiatedProtocol == "http/1.1")
        // More than one buffer's worth, so delivery happens in several parts.
        let message = [UInt8](repeating: 0x61, count: 5000)
        try message.withUnsafeBytes { try pair.client.write($0) }
        pair.pump()
        #expect(try Self.read(pair.server).bytes == message)
        try Array("pong".utf8).withUnsafeBytes { try pair.server.write($0) }
        pair.server.shutdown()
        pair.pump()
        let answer = try Self.read(pair.client)
        #expect(answer.bytes == Array("pong".utf8))
        #expect(answer.end == .closeNotify)
        #expect(pair.client.receivedCloseNotify)
    }

    @Test func corruptRecordIsAProtocolError() async throws {
        let pair = try await Self.pair()
        try pair.handshake()
        try Array("hello".utf8).withUnsafeBytes { try pair.client.write($0) }
        var record: [UInt8] = []
        pair.client.drainOutput { record = Array($0) }
        record[record.count - 1] ^= 0xFF  // flips a bit of the authentication tag
        record.withUnsafeBytes { pair.server.feed($0) }
        #expect(throws: TLSError.self) { try Self.read(pair.server) }
        do { _ = try Self.read(pair.server) } catch let error as TLSError { #expect(error.kind == .protocolError || error.kind == .handshakeFailed) }
    }

    @Test func wrongNameFailsTheHandshake() async throws {
        let pki = try await TestCertificates.shared()
        let server = try TLSEngine(context: try TLSContext(.server(identity: .init(certificateChain: .pem(pki.bytes("chain.pem")),
                                                                                  privateKey: .pem(pki.bytes("leaf.key"))))),
                                   host: nil, port: 0)
        let client = try TLSEngine(context: try TLSContext(pki.clientTrustingRoot), host: "example.org", port: 1)
        let pair = Pair(client: client, server: server)
        do {
            try pair.handshake()
            Issue.record("expected a host name mismatch")
        } catch let error as TLSError {
            #expect(error.kind == .hostnameMismatch)
            #expect(error.detail.contains("example.org"))
        }
    }
}
