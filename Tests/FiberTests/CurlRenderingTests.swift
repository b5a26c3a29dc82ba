import Fiber
import FiberRuntime
import FiberTesting
import Foundation
import Testing

/// `FiberRequest.cURL`: run with Debian's `curl` through `/bin/sh` against the test
/// server, the request it sends is the one Fiber sends.
@Suite("cURL rendering", .timeLimit(.minutes(1)))
struct CurlRenderingTests {
    /// Runs `command` with `/bin/sh -c` (curl bounded to 10 s); its exit status. Waits
    /// without holding a thread: a blocking wait would starve the tasks the server needs.
    static func shell(_ command: String) async throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command.replacingOccurrences(of: "curl ", with: "curl --max-time 10 ") + " >/dev/null 2>&1"]
        return try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do {
                try process.run()
            } catch {
                process.terminationHandler = nil
                continuation.resume(throwing: error)
            }
        }
    }

    static func sameRequest(_ a: TestRequest, _ b: TestRequest, fields: [String]) -> Bool {
        a.method == b.method && a.target == b.target && a.body == b.body
            && fields.allSatisfy { a.headers.values(name: $0) == b.headers.values(name: $0) }
    }

    @Test(arguments: ["text", "binary", "file", "bare"])
    func curlSendsWhatFiberSends(body kind: String) async throws {
        try FileManager.default.createDirectory(atPath: NSTemporaryDirectory(), withIntermediateDirectories: true)
        let file = NSTemporaryDirectory() + "fiber-curl-\(UUID().uuidString).bin"
        try Data([0, 1, 2, 0x27, 0x25, 0x5C, 0xFF, 10, 13]).write(to: URL(fileURLWithPath: file))
        defer { try? FileManager.default.removeItem(atPath: file) }
        try await withLiveServer { server, transport in
            server.route(prefix: "/echo") { _ in .status(204) }
            let fiber = Fiber(server.baseURL) { $0.transport = transport }
            var request = fiber.request(.put, "/echo/a b", query: ["q": "it's $HOME & `x`", "z": "ü"])
                .header(.authorization(bearerToken: "s3cr3t"))
                .header("X-Quote", #"it's "quoted" $(whoami) \n"#)
            switch kind {
            case "text": request = request.body(Data(#"{"name":"O'Brien","cost":"$5 %d"}"#.utf8), contentType: "application/json")
            case "binary": request = request.body(Data([0, 0xFF, 0x27, 0x25, 0x5C, 10, 0x7F, 0x80]))
            case "file": request = request.body(fileAt: file)
            default: request = request.method(.delete)
            }
            _ = try await fiber.send(request)
            let sent = try #require(server.lastRequest)
            let status = try await Self.shell(request.cURL(includingCredentials: true))
            #expect(status == 0)
            let fromCurl = try #require(server.lastRequest)
            #expect(server.recordedRequests().count == 2)
            #expect(Self.sameRequest(sent, fromCurl, fields: ["Authorization", "X-Quote", "Content-Type"]),
                    "\(sent.method) \(sent.target) \(sent.body.count) vs \(fromCurl.method) \(fromCurl.target) \(fromCurl.body.count)")
        }
    }

    @Test func credentialsAreRedactedUnlessAskedFor() {
        let request = FiberRequest(url: "http://user:pa55@127.0.0.1:9/x")
            .header(.authorization(username: "u", password: "p"))
            .header("Cookie", "session=abc")
            .header("Proxy-Authorization", "Basic eHg6eXk=")
        let shown = request.cURL()
        #expect(!shown.contains("pa55") && !shown.contains("dTpw") && !shown.contains("session=abc") && !shown.contains("eHg6eXk="))
        #expect(shown.contains("'Authorization: <redacted>'") && shown.contains("'Cookie: <redacted>'"))
        #expect(shown.hasPrefix("curl ") && shown.hasSuffix("'http://user:redacted@127.0.0.1:9/x'"))
        let full = request.cURL(includingCredentials: true)
        #expect(full.contains("pa55") && full.contains("Basic dTpw") && full.contains("session=abc"))
    }

    @Test func theChainRendersAndLogsItsRequest() {
        let fiber = Fiber("http://127.0.0.1:9")
        let logged = Locked<[String]>([])
        let chain = fiber.chain(.get, "/items", query: ["page": "2"]).cURLLog { line in logged.withLock { $0.append(line) } }
        #expect(chain.cURL == "curl 'http://127.0.0.1:9/items?page=2'")
        #expect(logged.withLock { $0 } == [chain.cURL])
    }
}
