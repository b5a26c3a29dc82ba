import ArgumentParser
import FiberCommandLine
import FiberRuntime
import FiberTesting
import Foundation
import Testing

/// The commands themselves, run with captured output against the loopback test server.
@Suite(.serialized) struct CommandTests {
    static func withServer(tls: Bool = false, _ body: (TestHTTPServer) async throws -> Void) async throws {
        var configuration = TestHTTPServer.Configuration()
        if tls { configuration.tls = .server(identity: try await TestCertificates.shared().serverIdentity()) }
        let server = try await TestHTTPServer.start(configuration: configuration)
        server.route("/json", respond: .json(#"{"ok":true}"#))
        server.route("/echo") { request in .ok(String(decoding: request.body, as: UTF8.self)) }
        server.route("/missing", respond: .text("no such thing", status: 404))
        let file = Array((0..<1000).map { UInt8($0 % 251) })
        server.route("/file") { request in
            if let range = request.header("Range"), range.hasPrefix("bytes="), let start = Int(range.dropFirst(6).dropLast()),
               request.header("If-Range") == "\"f1\"" {
                return .bytes(Array(file[start...]), status: 206, headers: ["Content-Range": "bytes \(start)-999/1000", "ETag": "\"f1\""])
            }
            return .bytes(file, headers: ["ETag": "\"f1\""])
        }
        do {
            try await body(server)
        } catch {
            await server.shutdown()
            throw error
        }
        await server.shutdown()
    }

    /// Runs `command` with `arguments`, capturing what it prints; returns the output and the exit code.
    static func run<C: AsyncParsableCommand>(_ command: C.Type, _ arguments: [String]) async throws -> (CommandOutput, Int32) {
        let output = CommandOutput.capturing()
        var parsed = try command.parse(arguments)
        do {
            try await CommandOutput.$current.withValue(output) { try await parsed.run() }
            return (output, 0)
        } catch let exit as ExitCode {
            return (output, exit.rawValue)
        }
    }

    @Test func postSendsItemsAsJSONQueryAndHeaders() async throws {
        try await Self.withServer { server in
            let (out, code) = try await Self.run(Post.self, [server.url("/echo"), "X-Id:7", "page==2", "name=Ada", "admin:=true", "--curl"])
            #expect(code == 0)
            #expect(out.standardOutput == #"{"name":"Ada","admin":true}"#)
            let request = try #require(server.lastRequest)
            #expect(request.method == "POST" && request.target == "/echo?page=2")
            #expect(request.header("X-Id") == "7" && request.header("Content-Type") == "application/json")
            #expect(out.standardError.contains("curl -X POST") && out.standardError.contains("'X-Id: 7'"))
        }
    }

    @Test func verboseShowsHeadersAndTimingAndErrorsExitWithTheirClass() async throws {
        try await Self.withServer { server in
            let (out, code) = try await Self.run(Get.self, [server.url("/json"), "--verbose"])
            #expect(code == 0)
            #expect(out.standardError.contains("HTTP/1.1 200 OK") && out.standardError.contains("first byte"))
            #expect(out.standardOutput.contains(#"{"ok":true}"#))
            let (missing, missingCode) = try await Self.run(Get.self, [server.url("/missing")])
            #expect(missingCode == 4)
            #expect(missing.standardOutput == "no such thing")
            let (_, ignored) = try await Self.run(Get.self, [server.url("/missing"), "--ignore-status"])
            #expect(ignored == 0)
        }
    }

    /// `--body @path` streams the file with its length; `--curl` shows it as `--data-binary @path`.
    @Test func aBodyFileIsStreamed() async throws {
        try await Self.withServer { server in
            let path = NSTemporaryDirectory() + "fiber-cli-body-\(UInt32.random(in: 0...UInt32.max)).txt"
            defer { try? FileManager.default.removeItem(atPath: path) }
            let text = String(repeating: "streamed body line\n", count: 20_000)
            FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
            let (out, code) = try await Self.run(Post.self, [server.url("/echo"), "--body", "@" + path, "--curl"])
            #expect(code == 0, "\(out.standardError)")
            #expect(out.standardOutput == text)
            #expect(server.lastRequest?.header("Content-Length") == "\(text.utf8.count)")
            #expect(out.standardError.contains("--data-binary '@\(path)'"))
            await #expect(throws: (any Error).self) {
                _ = try await Self.run(Post.self, [server.url("/echo"), "--body", "@/nonexistent/body.txt"])
            }
        }
    }

    @Test func downloadThenResumeWithRange() async throws {
        try await Self.withServer { server in
            let path = NSTemporaryDirectory() + "fiber-cli-\(UInt32.random(in: 0...UInt32.max)).bin"
            defer { try? FileManager.default.removeItem(atPath: path) }
            let whole = Array((0..<1000).map { UInt8($0 % 251) })
            FileManager.default.createFile(atPath: path, contents: Data(whole[..<400]))
            let (out, code) = try await Self.run(Get.self, [server.url("/file"), "--output", path, "--continue"])
            #expect(code == 0, "\(out.standardError)")
            #expect(server.lastRequest?.header("Range") == "bytes=400-")
            #expect(Array(FileManager.default.contents(atPath: path) ?? Data()) == whole)
            #expect(out.standardError.contains("resumed"))
            // Without --continue the file is written anew.
            _ = try await Self.run(Get.self, [server.url("/file"), "-o", path])
            #expect(Array(FileManager.default.contents(atPath: path) ?? Data()) == whole)
        }
    }

    @Test func httpsWithTheTestCAAndTimingOfTheHandshake() async throws {
        try await Self.withServer(tls: true) { server in
            server.route("/hello", respond: .ok("secure"))
            let ca = try await TestCertificates.shared().path("root.pem")
            let (out, code) = try await Self.run(Get.self, [server.url("/hello"), "--ca-file", ca, "--verbose"])
            #expect(code == 0)
            #expect(out.standardOutput == "secure")
            #expect(out.standardError.contains("tls") && !out.standardError.contains("tls         -"))
            // Without the CA, verification refuses the server.
            let (refused, refusedCode) = try await Self.run(Get.self, [server.url("/hello")])
            #expect(refusedCode == FiberExitCode.tlsFailure.rawValue && refused.standardOutput.isEmpty)
            let (insecure, _) = try await Self.run(Get.self, [server.url("/hello"), "--insecure"])
            #expect(insecure.standardOutput == "secure")
        }
    }

    @Test func benchReportsJSON() async throws {
        try await Self.withServer { server in
            let (out, code) = try await Self.run(Bench.self, [server.url("/json"), "-c", "4", "-d", "30", "--requests", "80",
                                                              "--warmup", "0", "--json"])
            #expect(code == 0)
            let report = try JSONSerialization.jsonObject(with: Data(out.standardOutput.utf8)) as? [String: Any]
            #expect(report?["succeeded"] as? Int == 80)
            #expect(report?["failed"] as? Int == 0)
            #expect(server.requestCount == 80)
            let (open, _) = try await Self.run(Bench.self, [server.url("/json"), "-c", "4", "-d", "0.2", "--rate", "100", "--warmup", "0"])
            #expect(open.standardOutput.contains("open loop") && open.standardOutput.contains("corrected for coordinated omission"))
        }
    }
}
