@testable import Fiber
import FiberRuntime
import FiberTesting
import Foundation
import Testing

@Suite("ConnectionMonitor: offline rules of Fiber")
struct ConnectionMonitorOfflineTests {
    @Test func loopbackHostsAreExempt() {
        for host in ["localhost", "LOCALHOST.", "api.localhost", "127.0.0.1", "127.255.0.9", "::1", "[::1]",
                     "0:0:0:0:0:0:0:1", "::ffff:127.0.0.1"] {
            #expect(LoopbackHost.contains(host), "\(host)")
        }
        for host in ["example.com", "localhost.example.com", "128.0.0.1", "10.0.0.1", "::2", "fe80::1", "::ffff:10.0.0.1",
                     "", "127.0.0.1.example", "mylocalhost"] {
            #expect(!LoopbackHost.contains(host), "\(host)")
        }
    }

    @Test func theOfflineErrorIsANetworkErrorThatIsOffline() {
        let error = FiberError.networkError(underlying: OfflineError(host: "api.example.com"))
        #expect(error.isOffline)
        #expect(error.isTransient)
        #expect(error.kind == .networkError)
        #expect(!error.isTransferFailure)
        #expect("\(error)".contains("api.example.com"))
    }

    @Test func aSequenceOfAMonitorNeverStartedEndsWithIt() async {
        var monitor: ConnectionMonitor? = ConnectionMonitor()
        let stream = monitor!.changes()
        let reader = Task { for await _ in stream {} }
        monitor = nil
        await reader.value
    }

    @Test func aStoppedMonitorBlocksNothing() async throws {
        let monitor = ConnectionMonitor()
        let mock = MockTransport()
        mock.stubAll(.ok(body: "fine"))
        let fiber = Fiber("https://api.example.com") {
            $0.transport = mock
            $0.connectionMonitor = monitor
        }
        #expect(monitor.isReachable)
        #expect(monitor.status == nil)
        #expect(monitor.interfaceType == nil)
        let response = try await fiber.get("/users")
        #expect(response.statusCode == 200)
    }
}
