import Fiber
import FiberRuntime
import FiberTesting
import FiberWebSocket
import Testing

/// A `WebSocketConfiguration` value that cannot work fails the connection
/// with `.invalidConfiguration` before anything connects, whichever way it is opened.
@Suite("WebSocket configuration", .timeLimit(.minutes(1)))
struct WebSocketConfigurationValidationTests {
    /// One setting made unworkable.
    struct Case: Sendable, CustomTestStringConvertible {
        let setting: String
        let apply: @Sendable (inout WebSocketConfiguration) -> Void
        var testDescription: String { setting }
        init(_ setting: String, _ apply: @escaping @Sendable (inout WebSocketConfiguration) -> Void) {
            self.setting = setting
            self.apply = apply
        }
    }

    static let cases: [Case] = [
        Case("maxFrameSize") { $0.maxFrameSize = 0 },
        Case("maxFrameSize") { $0.maxFrameSize = 124 },
        Case("maxMessageSize") { $0.maxMessageSize = 0 },
        Case("maxOutgoingFrameSize") { $0.maxOutgoingFrameSize = 0 },
        Case("connectTimeout") { $0.connectTimeout = .zero },
        Case("connectTimeout") { $0.connectTimeout = .seconds(Int64.max) },
        Case("closeTimeout") { $0.closeTimeout = .seconds(-1) },
        Case("pingInterval") { $0.pingInterval = .zero },
        Case("pingTimeout") { $0.pingTimeout = .zero },
        Case("receiveLowWatermark") { $0.receiveHighWatermark = 0 },
        Case("receiveLowWatermark") { $0.receiveLowWatermark = $0.receiveHighWatermark },
        Case("receiveLowWatermark") { $0.receiveLowWatermark = -1 },
        Case("compression.clientMaxWindowBits") { $0.compression = PerMessageDeflate(clientMaxWindowBits: 16) },
        Case("compression.serverMaxWindowBits") { $0.compression = PerMessageDeflate(serverMaxWindowBits: 7) },
        Case("compression.minimumSizeToCompress") { $0.compression = PerMessageDeflate(minimumSizeToCompress: -1) },
    ]

    @Test(arguments: cases)
    func aSettingThatCannotWorkFailsTheConnectionBeforeItConnects(_ bad: Case) async throws {
        let server = try await TestWebSocketServer.start()
        var configuration = quietConfiguration()
        bad.apply(&configuration)
        #expect { try configuration.validate() } throws: { Self.names(bad.setting, $0) }

        // `open` throws it.
        await #expect { _ = try await WebSocketClient.open(server.url, configuration: configuration) } throws: {
            Self.names(bad.setting, $0)
        }
        // `connect` reports it as the connection's only error.
        let events = await allEvents(WebSocketClient.connect(to: server.url, configuration: configuration))
        #expect(events.count == 2 && ending(events).code == 1006)
        #expect(ending(events).error.map { Self.names(bad.setting, $0) } == true)
        // `Fiber.webSocket` throws it before its interceptors run.
        let ran = Locked(0)
        let counter = AnyInterceptor("counter") { request, next in
            ran.withLock { $0 += 1 }
            return try await next(request)
        }
        let fiber = Fiber("http://127.0.0.1:\(server.port)") { $0.interceptors = [counter] }
        await #expect {
            _ = try await fiber.webSocket("/", configuration: configuration)
        } throws: { error in
            guard case .networkError(let underlying)? = error as? FiberError else { return false }
            return Self.names(bad.setting, underlying)
        }
        #expect(ran.withLock { $0 } == 0)
        #expect(server.acceptedCount == 0, "nothing was connected")
        await server.shutdown()
    }

    /// The defaults, and the smallest values that work, open and echo.
    @Test func theDefaultsAndTheSmallestWorkingValuesOpenAndEcho() async throws {
        #expect(throws: Never.self) { try WebSocketConfiguration().validate() }
        let server = try await TestWebSocketServer.start(behavior: .echo, handshake: .init(deflate: true))
        var configuration = quietConfiguration()
        configuration.maxFrameSize = 125
        configuration.maxMessageSize = 1
        configuration.maxOutgoingFrameSize = 1
        configuration.receiveLowWatermark = 0
        configuration.receiveHighWatermark = 1
        configuration.compression = PerMessageDeflate(clientMaxWindowBits: 8, serverMaxWindowBits: 8, minimumSizeToCompress: 0)
        let ws = try await WebSocketClient.open(server.url, configuration: configuration)
        try await ws.send(.text("x"))
        var iterator = ws.events.makeAsyncIterator()
        #expect(await iterator.next() == .connected)
        #expect(await iterator.next() == .message(.text("x")))
        ws.close()
        await server.shutdown()
    }

    /// True when `error` is a `WebSocketError` `.invalidConfiguration` that names `setting`.
    static func names(_ setting: String, _ error: any Error) -> Bool {
        guard let error = error as? WebSocketError else { return false }
        return error.kind == .invalidConfiguration && error.message.hasPrefix(setting + " ")
    }
}
