import FiberRuntime
import FiberTesting
import Testing

/// A configuration value that cannot work is a typed `ConfigurationError`,
/// thrown before anything reaches a loop, never a crash on a loop thread.
@Suite("HTTP client configuration", .timeLimit(.minutes(1)))
struct HTTPConfigurationValidationTests {
    /// One setting made unworkable.
    struct Case: Sendable, CustomTestStringConvertible {
        let setting: String
        let apply: @Sendable (inout HTTPClient.Configuration) -> Void
        var testDescription: String { setting }
        init(_ setting: String, _ apply: @escaping @Sendable (inout HTTPClient.Configuration) -> Void) {
            self.setting = setting
            self.apply = apply
        }
    }

    static let cases: [Case] = [
        Case("maxConnectionsPerHost") { $0.maxConnectionsPerHost = 0 },
        Case("maxIdleConnectionsPerHost") { $0.maxIdleConnectionsPerHost = -1 },
        Case("idleTimeout") { $0.idleTimeout = .zero },
        Case("maxConnectionLifetime") { $0.maxConnectionLifetime = .seconds(-1) },
        Case("requestTimeout") { $0.requestTimeout = .zero },
        Case("readIdleTimeout") { $0.readIdleTimeout = .milliseconds(-5) },
        Case("responseHeadTimeout") { $0.responseHeadTimeout = .zero },
        // Past what the loop's millisecond timers can count: it trapped on the loop thread.
        Case("idleTimeout") { $0.idleTimeout = .seconds(Int64.max) },
        Case("maxInterimResponses") { $0.maxInterimResponses = -1 },
        Case("maxResponseBodySize") { $0.maxResponseBodySize = -1 },
        Case("maxHeaderBytes") { $0.maxHeaderBytes = 0 },
        Case("redirects.maxRedirects") { $0.redirects = RedirectPolicy(maxRedirects: -1) },
        Case("maxDecompressionRatio") { $0.maxDecompressionRatio = 0 },
        Case("socket.connectTimeout") { $0.socket.connectTimeout = .zero },
        Case("socket.attemptDelay") { $0.socket.attemptDelay = .milliseconds(-1) },
        Case("socket.keepAlive") { $0.socket.keepAlive = .zero },
        Case("socket.keepAlive") { $0.socket.keepAlive = .seconds(40_000) },
        Case("socket.readLowWatermark") { $0.socket.readHighWatermark = 0 },
        Case("socket.readLowWatermark") { $0.socket.readLowWatermark = $0.socket.readHighWatermark },
        Case("socket.readLowWatermark") { $0.socket.readLowWatermark = -1 },
        Case("streamHighWatermark") { $0.streamHighWatermark = 0 },
    ]

    @Test(arguments: cases)
    func aSettingThatCannotWorkFailsEveryRequestBeforeItIsSent(_ bad: Case) async throws {
        let server = try await TestHTTPServer.start()
        server.route("/", respond: .ok("hello"))
        var configuration = HTTPClient.Configuration()
        bad.apply(&configuration)
        #expect { try configuration.validate() } throws: { ($0 as? HTTPClient.ConfigurationError)?.setting == bad.setting }

        let client = HTTPClient(configuration: configuration)
        await expectConfigurationError(bad.setting) { _ = try await client.execute(HTTPClientRequest(url: server.url("/"))) }
        await expectConfigurationError(bad.setting) { _ = try await client.stream(HTTPClientRequest(url: server.url("/"))) }
        #expect(server.connectionCount == 0, "nothing was connected")
        await client.shutdown()
        await server.shutdown()
    }

    /// The defaults, and the smallest values that work, pass and serve requests, streamed ones too.
    @Test func theDefaultsAndTheSmallestWorkingValuesServeRequests() async throws {
        #expect(throws: Never.self) { try HTTPClient.Configuration().validate() }
        try await withClient(configure: {
            $0.maxConnectionsPerHost = 1
            $0.maxIdleConnectionsPerHost = 0
            $0.maxInterimResponses = 0
            $0.maxDecompressionRatio = 1
            $0.socket.attemptDelay = .zero
            $0.socket.readLowWatermark = 0
            $0.socket.readHighWatermark = 1
            $0.streamHighWatermark = 1
        }) { client, server in
            server.route("/", respond: .ok("hello"))
            #expect(try await client.get(server.url("/")).body == Array("hello".utf8))
            var body: [UInt8] = []
            for try await chunk in try await client.stream(HTTPClientRequest(url: server.url("/"))).body { body += chunk }
            #expect(body == Array("hello".utf8))
        }
    }

    @Test func requestOptionsThatCannotWorkFailTheRequestBeforeItIsSent() async throws {
        let cases: [(String, (inout HTTPClient.RequestOptions) -> Void)] = [
            ("RequestOptions.timeout", { $0.timeout = .zero }),
            ("RequestOptions.readIdleTimeout", { $0.readIdleTimeout = .seconds(Int64.max) }),
            ("RequestOptions.responseHeadTimeout", { $0.responseHeadTimeout = .seconds(-1) }),
            ("RequestOptions.redirects.maxRedirects", { $0.redirects = RedirectPolicy(maxRedirects: -2) }),
            ("RequestOptions.maxResponseBodySize", { $0.maxResponseBodySize = -1 }),
        ]
        try await withClient { client, server in
            server.route("/", respond: .ok("hello"))
            for (setting, apply) in cases {
                var options = HTTPClient.RequestOptions()
                apply(&options)
                await expectConfigurationError(setting) { _ = try await client.get(server.url("/"), options: options) }
            }
            #expect(server.requestCount == 0)
        }
    }
}

/// Expects `body` to throw `HTTPClient.ConfigurationError` for `setting`.
private func expectConfigurationError(_ setting: String, sourceLocation: SourceLocation = #_sourceLocation,
                                      _ body: () async throws -> Void) async {
    do {
        try await body()
        Issue.record("expected a configuration error for \(setting)", sourceLocation: sourceLocation)
    } catch let error as HTTPClient.ConfigurationError {
        #expect(error.setting == setting, sourceLocation: sourceLocation)
        #expect("\(error)".contains(setting), sourceLocation: sourceLocation)
    } catch {
        Issue.record("expected a configuration error for \(setting), got \(error)", sourceLocation: sourceLocation)
    }
}
