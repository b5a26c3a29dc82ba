import Fiber
import FiberTesting
import Foundation
import Logging
import FiberRuntime
import Testing

@Suite struct LoggingInterceptorTests {
    @Test func requestAndResponseLinesWithTrace() async throws {
        // The README's "Testing Tracing" example.
        let collector = TestTraceCollector()
        let logging = LoggingInterceptor(logger: collector.logger())
        let mock = MockTransport()
        mock.stubAll(.ok())
        let url = apiURL
        let fiber = Fiber(baseURL: url, interceptors: [logging], transport: mock)
        let response = try await fiber.get("/test")

        #expect(collector.logs.count >= 2)  // request + response logged
        let lines = collector.messages.filter { !$0.hasPrefix("[HTTP]   ") }
        #expect(lines.count == 2)
        #expect(lines[0] == "[HTTP] [→ GET /test] trace=\(response.traceID)")
        #expect(lines[1].hasPrefix("[HTTP] [← 200 OK] ") && lines[1].hasSuffix("ms trace=\(response.traceID)"))
        #expect(collector.traceIDs == [response.traceID])
    }

    @Test func redactsCredentialsAndTruncatesBodies() async throws {
        let collector = TestTraceCollector()
        let defaults = FiberDefaults(loggingSystemName: "NET", logBodyTruncationLimit: 10)
        let logging = LoggingInterceptor(logger: collector.logger(), logBody: true, defaults: defaults)
        let (fiber, mock) = mockFiber([logging])
        mock.stubAll(StubResponse.created(body: String(repeating: "y", count: 50)).header("Set-Cookie", "session=SECRET3"))
        let request = FiberRequest(url: "https://api.example.com/users")
            .method(.post)
            .header("Authorization", "Bearer SECRET1")
            .header("Cookie", "id=SECRET2")
            .header("X-Visible", "shown")
            .body(String(repeating: "x", count: 50))
        try await fiber.send(request)
        let text = collector.messages.joined(separator: "\n")
        #expect(!text.contains("SECRET"))
        #expect(text.contains("Authorization: <redacted>") && text.contains("Cookie: <redacted>"))
        #expect(text.contains("Set-Cookie: <redacted>") && text.contains("X-Visible: shown"))
        #expect(text.contains("[NET]   Body: xxxxxxxxxx..."))
        #expect(text.contains("[NET]   Body: yyyyyyyyyy..."))
        #expect(text.contains("[NET] [← 201 Created]"))
        #expect(!text.contains(String(repeating: "x", count: 11)))
    }

    /// Lines follow the logger's threshold: at `.warning`, a 4xx's response line and
    /// nothing else; at a level above every line's, nothing, and the response still passes.
    @Test func linesFollowTheLoggersThreshold() async throws {
        let lines = Locked<[(FiberLogLevel, String)]>([])
        struct Threshold: FiberLogger {
            let minimum: FiberLogLevel?
            let lines: Locked<[(FiberLogLevel, String)]>
            func log(_ level: FiberLogLevel, _ message: String, metadata: [String: String]) {
                lines.withLock { $0.append((level, message)) }
            }
            func isLogging(_ level: FiberLogLevel) -> Bool { minimum.map { level >= $0 } ?? false }
        }
        let (warning, warningMock) = mockFiber([LoggingInterceptor(logger: Threshold(minimum: .warning, lines: lines))])
        warningMock.stubAll(.notFound())
        #expect(try await warning.get("/missing").statusCode == 404)
        #expect(lines.withLock { $0.map(\.0) } == [.warning])
        #expect(lines.withLock { $0.first?.1.hasPrefix("[HTTP] [← 404 Not Found]") ?? false })

        lines.withLock { $0.removeAll() }
        let (silent, silentMock) = mockFiber([LoggingInterceptor(logger: Threshold(minimum: nil, lines: lines))])
        silentMock.stubAll(.serverError())
        #expect(try await silent.get("/broken").statusCode == 500)
        #expect(lines.withLock { $0.isEmpty })
    }

    @Test func failuresAreLoggedAndRethrown() async throws {
        let collector = TestTraceCollector()
        let (fiber, mock) = mockFiber([LoggingInterceptor(logger: collector.logger())])
        mock.stubAll(.failure(FiberError.timeout))
        await expectFiberError({ if case .timeout = $0 { true } else { false } }) { try await fiber.get("/slow") }
        #expect(collector.logs.contains { $0.level == .warning && $0.message.contains("timed out") })
        #expect(!collector.logs.contains { $0.level == .error })  // the caller has the error
    }

    @Test func swiftLogBackedLogger() async throws {
        let handler = RecordingLogHandler()
        var logger = Logger(label: "com.myapp") { _ in handler }
        logger.logLevel = .info
        let fiberLogger = SwiftLogFiberLogger(logger: logger)
        #expect(!fiberLogger.isLogging(.debug) && fiberLogger.isLogging(.info))
        let (fiber, mock) = mockFiber([LoggingInterceptor(logger: fiberLogger)])
        mock.stubAll(StubResponse.ok().header("Authorization", "leak"))
        try await TraceContext.$metadata.withValue(["userId": "123"]) {
            try await fiber.get("/users")
        }
        let records = handler.records
        #expect(records.count == 2)  // headers are .debug, below the logger's level
        #expect(records.allSatisfy { $0.metadata["userId"] == "123" && $0.metadata["trace"] != nil })
        #expect(records.first?.message.hasPrefix("[HTTP] [→ GET /users]") == true)
        #expect(!records.contains { $0.message.contains("leak") })
    }

    @Test func printLoggerFiltersByLevel() {
        #expect(PrintFiberLogger(minimumLevel: .warning).isLogging(.error))
        #expect(!PrintFiberLogger(minimumLevel: .warning).isLogging(.info))
    }
}

/// A swift-log handler that keeps what it receives.
final class RecordingLogHandler: LogHandler, Sendable {
    struct Record: Sendable {
        let level: Logger.Level
        let message: String
        let metadata: [String: String]
    }

    private let stored = Locked<[Record]>([])
    var records: [Record] { stored.withLock { $0 } }

    var metadata: Logger.Metadata {
        get { [:] }
        set {}
    }

    private let level = Locked(Logger.Level.trace)
    var logLevel: Logger.Level {
        get { level.withLock { $0 } }
        set { level.withLock { $0 = newValue } }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { nil }
        set {}
    }

    func log(event: LogEvent) {
        let metadata = (event.metadata ?? [:]).mapValues { "\($0)" }
        stored.withLock { $0.append(Record(level: event.level, message: "\(event.message)", metadata: metadata)) }
    }
}
