@testable import FiberWebSocket
import Testing

/// Inputs the fuzz targets (Fuzz/) found breaking a rule, kept as tests once fixed.
@Suite("Fuzz findings: WebSocket")
struct WebSocketFuzzFindingsTests {
    /// An empty parameter in the server's answer (a stray `;`) used to crash the client; it fails the handshake.
    @Test(arguments: ["permessage-deflate; ", "permessage-deflate; ,server_no_context_takeover", "permessage-deflate; =15"])
    func anEmptyExtensionParameterFailsTheHandshake(answer: String) {
        #expect {
            _ = try PerMessageDeflate().accept(answer)
        } throws: { error in
            (error as? WebSocketError)?.kind == .handshakeFailed
        }
    }
}
