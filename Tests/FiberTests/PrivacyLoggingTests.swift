import Fiber
import FiberTesting
import Foundation
import Logging
import Testing

/// Privacy levels: values hidden before the line reaches swift-log, so every
/// handler writes the placeholder; the logging interceptor's parts, over real sockets.
@Suite("Logging with privacy", .timeLimit(.minutes(1)))
struct PrivacyLoggingTests {
    static func swiftLog() -> (SwiftLogFiberLogger, RecordingLogHandler) {
        let handler = RecordingLogHandler()
        var logger = Logger(label: "privacy") { _ in handler }
        logger.logLevel = .trace
        return (SwiftLogFiberLogger(logger: logger), handler)
    }

    @Test func interpolatedValuesCarryTheirPrivacy() {
        let (fiberLogger, handler) = Self.swiftLog()
        let user = "ada@example.com", token = "tok-123", path = "/users/7"
        fiberLogger.log(.info, "user \(user, privacy: .private) token \(token, privacy: .sensitive) path \(path, privacy: .public) n \(42)")
        #expect(handler.records.map(\.message) == ["user <private> token <redacted> path /users/7 n <private>"])

        // A rule for automatic values, and private values revealed for local debugging.
        let rule = LogPrivacyPolicy(auto: { $0.allSatisfy(\.isNumber) ? .public : .sensitive })
        fiberLogger.log(.info, "n \(42) word \("secret")", privacy: rule)
        let revealing = LogPrivacyPolicy(revealsPrivate: true)
        fiberLogger.log(.info, "user \(user, privacy: .private) token \(token, privacy: .sensitive)", privacy: revealing)
        #expect(handler.records.dropFirst().map(\.message) == ["n 42 word <redacted>", "user ada@example.com token <redacted>"])
        #expect(!handler.records.contains { $0.message.contains(token) })
    }

    @Test func networkLoggerWritesWholeMessagesAtTheirLevel() {
        let (fiberLogger, handler) = Self.swiftLog()
        let logger = NetworkLogger(logger: fiberLogger)
        logger.logMessage(message: "Bootstrapping network layer", level: .info, logPrivacy: .public)
        logger.logMessage(message: "user 7 signed in", level: .warning, logPrivacy: .private)
        logger.logMessage(message: "Bearer abc", level: .error, logPrivacy: .sensitive)
        logger.cURLLog(request: FiberRequest(url: "http://127.0.0.1:9/x?token=abc"))
        #expect(handler.records.map(\.message) == ["Bootstrapping network layer", "<private>", "<redacted>", "<private>"])
        #expect(handler.records.map(\.level) == [.info, .warning, .error, .debug])
        let open = NetworkLogger(logger: fiberLogger, privacy: LogPrivacyPolicy(curl: .public))
        open.cURLLog(request: FiberRequest(url: "http://127.0.0.1:9/x").header(.authorization(bearerToken: "abc")))
        #expect(handler.records.last?.message == "curl -H 'Authorization: <redacted>' 'http://127.0.0.1:9/x'")
    }

    @Test func theLoggingInterceptorHidesWhatThePolicySays() async throws {
        try await withLiveServer { server, transport in
            server.route("POST", "/users") { _ in .json(#"{"ssn":"123-45-6789"}"#).withHeader("X-User", "ada") }
            let (fiberLogger, handler) = Self.swiftLog()
            let policy = LogPrivacyPolicy(query: .private, headers: .private, body: .sensitive, curl: .public)
            let fiber = Fiber(server.baseURL) {
                $0.transport = transport
                $0.interceptors = [LoggingInterceptor(logger: fiberLogger, logBody: true, privacy: policy, logsCURL: true)]
            }
            _ = try await fiber.send(fiber.request(.post, "/users", query: ["email": "ada@example.com"])
                .header("Authorization", "Bearer tok-1").body(Data(#"{"password":"hunter2"}"#.utf8), contentType: "application/json"))
            let lines = handler.records.map(\.message)
            let text = lines.joined(separator: "\n")
            #expect(lines.first?.hasPrefix("[HTTP] [→ POST /users?<private>]") == true)
            #expect(lines.contains("[HTTP]   Authorization: <redacted>") && lines.contains("[HTTP]   X-User: <private>"))
            #expect(lines.filter { $0 == "[HTTP]   Body: <redacted>" }.count == 2)
            // The command line would show the body, which the policy calls sensitive: it is redacted whole.
            #expect(lines.contains("[HTTP]   <redacted>"))
            for secret in ["tok-1", "hunter2", "123-45-6789", "ada@example.com", "ada%40"] { #expect(!text.contains(secret), "\(secret)") }

            // With nothing to hide but credentials, the command line is shown, credentials redacted.
            let open = LogPrivacyPolicy(query: .public, curl: .public)
            let shown = Fiber(server.baseURL) {
                $0.transport = transport
                $0.interceptors = [LoggingInterceptor(logger: fiberLogger, privacy: open, logsCURL: true)]
            }
            _ = try await shown.send(shown.request(.post, "/users", query: ["page": "2"]).header("Authorization", "Bearer tok-2"))
            #expect(handler.records.contains { $0.message.hasPrefix("[HTTP]   curl -X POST") && $0.message.contains("'Authorization: <redacted>'")
                && $0.message.contains("page=2") })
            #expect(handler.records.contains { $0.message.hasPrefix("[HTTP] [→ POST /users?page=2]") })
            #expect(!handler.records.contains { $0.message.contains("tok-2") })
        }
    }
}
