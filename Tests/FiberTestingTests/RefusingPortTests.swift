import FiberRuntime
import FiberTesting
import Testing

@Suite struct RefusingPortTests {
    @Test func connectsAreRefusedAndThePortStaysTaken() async throws {
        let refusing = RefusingPort()
        for _ in 0..<3 {
            await #expect {
                _ = try await SocketStream.connect(host: "127.0.0.1", port: refusing.port)
            } throws: { ($0 as? TransportError)?.kind == .connectionRefused }
        }
        // No server of a parallel test can be given the port while it is held.
        await #expect {
            _ = try await SocketListener.listen(host: "127.0.0.1", port: refusing.port)
        } throws: { ($0 as? TransportError)?.kind == .addressInUse }
        withExtendedLifetime(refusing) {}
    }
}
