@testable import Fiber
@testable import FiberRuntime
@testable import FiberTesting
import FiberWebSocket
import Foundation
import Testing

/// Every public error type reads as a sentence in `localizedDescription`,
/// not Foundation's "The operation could not be completed. (… error 2.)".
/// (`LoadFailure` and `RequestItems.ParseError` conform too; their modules
/// are not dependencies of this target.)
@Suite struct ErrorDescriptionTests {
    /// Real failures where they are cheap to cause: a refused connection, an invalid URL, a deadline.
    static func realFailures() async throws -> [any Error] {
        let listener = try await SocketListener.listen(host: "127.0.0.1", port: 0)
        let closedPort = listener.port
        await listener.close()
        let client = HTTPClient(eventLoopGroup: .shared, configuration: .init())
        var errors: [any Error] = []
        for url in ["http://127.0.0.1:\(closedPort)/", "not a URL"] {
            do { _ = try await client.execute(HTTPClientRequest(url: url)) } catch { errors.append(error) }
        }
        await client.shutdown()
        do {
            _ = try await EventLoopGroup.shared.next().withTimeout(.milliseconds(5)) { try await Task.sleep(for: .seconds(10)) }
        } catch {
            errors.append(error)
        }
        do { _ = try await FiberBodyStream(data: Data(count: 10)).collect(maxBytes: 1) } catch { errors.append(error) }
        if case .networkError(let tooLarge)? = errors.last as? FiberError { errors.append(tooLarge) }
        do { _ = try ChildProcess.spawn("/nonexistent/fiber-test", arguments: [], output: "/dev/null") } catch { errors.append(error) }
        return errors
    }

    static var madeFailures: [any Error] {
        let request = FiberRequest(url: "https://api.example.com/users/1")
        let response = FiberResponse(data: Data("{}".utf8), statusCode: 404, request: request)
        let decoding = DecodingError.keyNotFound(AnyKey("id"), .init(codingPath: [AnyKey("user")], debugDescription: "No value for key \"id\"."))
        let tls = TLSError(.certificateExpired, "the certificate of example.com (CN=example.com) expired on 2026-01-01 00:00 UTC",
                           host: "example.com", verifyCode: 10, openSSLErrors: ["error:0A000086:SSL routines::certificate verify failed"])
        return [
            FiberError.httpError(statusCode: 404, data: response.data, response: response),
            FiberError.decodingError(underlying: decoding, data: Data("{}".utf8)),
            FiberError.networkError(underlying: TransportError.tls(tls, operation: "TLS handshake")),
            FiberError.timeout, FiberError.cancelled,
            FiberError.interceptor(name: "auth", underlying: RateLimitError.exceeded(limit: 2, interval: 1)),
            FiberError.invalidURL("not a URL"),
            FiberError.encodingError(underlying: EncodingError.invalidValue(Double.nan, .init(codingPath: [], debugDescription: "NaN"))),
            tls, TLSError(.truncated, "the peer closed the connection without close_notify: the data may be cut short", host: "example.com"),
            TransportError(.connectionRefused, operation: "connect", host: "example.com", address: "192.0.2.1:443",
                           code: -111, codeName: "ECONNREFUSED", systemMessage: "connection refused"),
            EventLoopError.shutdown, EventLoopError.sharedGroupShutdown, EventLoopError.alreadyShutDown,
            DeadlineExceeded(timeout: .seconds(5)),
            HTTPClientError(.tls, url: "https://example.com/", transport: .tls(tls, operation: "TLS handshake")),
            HTTPClientError(.tooManyRedirects, "more than 10", url: "https://example.com/"),
            WebSocketError(.pingTimeout, "no pong within 10 s"),
            WebSocketError(.tls, "TLS with example.com failed: certificate expired", transport: .tls(tls, operation: "TLS handshake")),
            WebSocketError(.upgradeFailed, "the server answered 403", status: 403),
            RateLimitError.exceeded(limit: 2, interval: 1),
            BodyTooLarge(limit: 1024),
            ChildProcess.SpawnError(description: "posix_spawn /nonexistent failed: No such file or directory"),
            TestHTTPServerError("timed out after 5 s waiting for a request"),
            TestCertificates.GenerationError(description: "cannot write /tmp/fiber-pki/root.pem: permission denied"),
        ]
    }

    @Test func everyPublicErrorReadsAsOneSentence() async throws {
        let errors = try await Self.realFailures() + Self.madeFailures
        #expect(errors.count >= Self.madeFailures.count + 6)
        for error in errors {
            let text = error.localizedDescription
            #expect(!text.contains("The operation could not be completed"), "\(type(of: error)): \(text)")
            #expect(!text.isEmpty && !text.contains("\n"), "\(type(of: error)): \(text)")
            #expect((error as? any LocalizedError)?.errorDescription == text, "\(type(of: error))")
        }
    }

    @Test func aNetworkErrorReadsAsItsCauseAndTLSIsSaidOnce() throws {
        let tls = TLSError(.certificateExpired, "the certificate of example.com (CN=example.com) expired on 2026-01-01 00:00 UTC",
                           host: "example.com", verifyCode: 10)
        let http = HTTPClientError(.tls, url: "https://example.com/a", transport: .tls(tls, operation: "TLS handshake"))
        let sentence = "TLS: the certificate of example.com (CN=example.com) expired on 2026-01-01 00:00 UTC"
        #expect(tls.localizedDescription == sentence)
        #expect(http.localizedDescription == sentence + " (https://example.com/a)")
        #expect(FiberError.networkError(underlying: http).localizedDescription == sentence + " (https://example.com/a)")
        #expect(http.composedDescription.hasPrefix(sentence + " (https://example.com/a) ["), "\(http.composedDescription)")
        #expect(http.composedDescription.components(separatedBy: "example.com (CN").count == 2, "\(http.composedDescription)")
        #expect(!http.composedDescription.contains("TLS failure"), "\(http.composedDescription)")
    }
}

/// A coding key for made-up decoding errors.
private struct AnyKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ name: String) { stringValue = name }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}
