import FiberRuntime
import Testing

/// Behaviour of the runtime found while writing the test server, fixed in
/// `SocketStream` and kept here as a regression test.
@Suite(.timeLimit(.minutes(1)))
struct RuntimeIssueTests {
    /// When a peer's bytes and its RST arrive in the same poll event, libuv
    /// (`uv__stream_io`, POLLHUP after a partial read) reports UV_EOF and never
    /// reads the pending `ECONNRESET` (it stays in `SO_ERROR`); the stream asks
    /// the socket at EOF, so a reset mid-body is not taken for a close.
    @Test func aResetRightAfterDataIsReportedAsAReset() async throws {
        let group = EventLoopGroup(loopCount: 1, name: "issue")
        let loop = group.loops[0]
        let listener = try await SocketListener.listen(on: loop)
        let accepted = Task { try await listener.accept() }
        let client = try await SocketStream.connect(host: "127.0.0.1", port: listener.port, on: loop)
        let server = try await accepted.value
        try await client.write(Array("request".utf8))
        _ = try await server.read()
        try await server.write(Array("xxx".utf8))
        await server.reset()
        var received: [UInt8] = []
        // libuv reports EOF here and leaves ECONNRESET in SO_ERROR; SocketStream asks the socket.
        await #expect {
            while let chunk = try await client.read() { received += chunk }
        } throws: { ($0 as? TransportError)?.kind == .connectionReset }
        #expect(received == Array("xxx".utf8))
        await client.close()
        await listener.close()
        try await group.shutdown()
    }
}
