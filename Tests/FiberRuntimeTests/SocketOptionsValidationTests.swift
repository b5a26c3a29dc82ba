@testable import FiberRuntime
import FiberTesting
import Testing

/// Socket options that cannot work are refused with a typed error before a
/// socket opens, never a crash on a loop thread; durations too large for the
/// timers or for TCP saturate.
@Suite("Socket options validation")
struct SocketOptionsValidationTests {
    static let bad: [(String, @Sendable (inout SocketOptions) -> Void)] = [
        ("socket.readLowWatermark", { $0.readLowWatermark = 10; $0.readHighWatermark = 10 }),
        ("socket.readLowWatermark", { $0.readLowWatermark = -1 }),
        ("socket.connectTimeout", { $0.connectTimeout = .zero }),
        ("socket.attemptDelay", { $0.attemptDelay = .seconds(-1) }),
        ("socket.keepAlive", { $0.keepAlive = .seconds(1 << 40) }),
    ]

    @Test func badOptionsAreATypedErrorBeforeAnythingConnects() async throws {
        let server = try await TestHTTPServer.start()
        for (setting, spoil) in Self.bad {
            var options = SocketOptions()
            spoil(&options)
            #expect(throws: HTTPClient.ConfigurationError.self) { try options.validate() }
            do {
                _ = try await SocketStream.connect(host: "127.0.0.1", port: server.port, options: options)
                Issue.record("connected with a bad \(setting)")
            } catch let error as HTTPClient.ConfigurationError {
                #expect(error.setting == setting)
            }
        }
        #expect(server.connectionCount == 0)
        // The defaults connect.
        let stream = try await SocketStream.connect(host: "127.0.0.1", port: server.port)
        await stream.close()
        await server.shutdown()
    }

    @Test func aHugeKeepAliveOnAnOpenSocketSaturates() async throws {
        let server = try await TestHTTPServer.start()
        let stream = try await SocketStream.connect(host: "127.0.0.1", port: server.port)
        do {
            try await stream.setKeepAlive(.seconds(Int64.max / 2))
        } catch is TransportError {
            // The kernel refuses an idle time past its range: an error, not a trap.
        }
        await stream.close()
        await server.shutdown()
    }

    @Test func timerDurationsSaturate() {
        #expect(LoopTimer.milliseconds(.seconds(Int64.max)) == .max)
        #expect(LoopTimer.milliseconds(.milliseconds(1500)) == 1500)
        #expect(LoopTimer.milliseconds(.seconds(-5)) == 0)
    }
}
