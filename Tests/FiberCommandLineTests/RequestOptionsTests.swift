import ArgumentParser
import FiberCommandLine
import FiberRuntime
import FiberTesting
import Foundation
import Testing

/// The request commands' options for scripts: forms and file uploads, client
/// certificates, redirects left alone, JSON output, and TLS on `fiber ws`.
@Suite(.serialized) struct RequestOptionsTests {
    @Test func formSendsTheFieldsURLEncoded() async throws {
        try await CommandTests.withServer { server in
            let (out, code) = try await CommandTests.run(Post.self, [server.url("/echo"), "--form", "name=Ada Lovelace", "note=a&b=c", "X-Id:1"])
            #expect(code == 0, "\(out.standardError)")
            #expect(out.standardOutput == "name=Ada+Lovelace&note=a%26b%3Dc")
            #expect(server.lastRequest?.header("Content-Type") == "application/x-www-form-urlencoded")
            await #expect(throws: (any Error).self) {
                _ = try await CommandTests.run(Post.self, [server.url("/echo"), "--form", "count:=3"])
            }
        }
    }

    @Test func fileItemsAreSentAsMultipartParts() async throws {
        try await CommandTests.withServer { server in
            let path = NSTemporaryDirectory() + "fiber-upload-\(UUID().uuidString).txt"
            defer { try? FileManager.default.removeItem(atPath: path) }
            let content = String(repeating: "file line\n", count: 500)
            FileManager.default.createFile(atPath: path, contents: Data(content.utf8))
            let (out, code) = try await CommandTests.run(Post.self, [server.url("/echo"), "--form", "title=Notes", "doc@" + path])
            #expect(code == 0, "\(out.standardError)")
            let request = try #require(server.lastRequest)
            let contentType = try #require(request.header("Content-Type"))
            #expect(contentType.hasPrefix("multipart/form-data; boundary="))
            let boundary = String(contentType.dropFirst("multipart/form-data; boundary=".count))
            let name = (path as NSString).lastPathComponent
            let expected = "--\(boundary)\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\nNotes\r\n"
                + "--\(boundary)\r\nContent-Disposition: form-data; name=\"doc\"; filename=\"\(name)\"\r\n"
                + "Content-Type: application/octet-stream\r\n\r\n\(content)\r\n--\(boundary)--\r\n"
            #expect(String(decoding: request.body, as: UTF8.self) == expected)
            #expect(request.header("Content-Length") == "\(expected.utf8.count)")
            await #expect(throws: (any Error).self) {
                _ = try await CommandTests.run(Post.self, [server.url("/echo"), "doc@/nonexistent/file.txt"])
            }
        }
    }

    @Test func clientCertificateAndKeyForAServerThatRequiresOne() async throws {
        let pki = try await TestCertificates.shared()
        var configuration = TestHTTPServer.Configuration()
        var tls = TLSConfiguration.server(identity: pki.serverIdentity())
        tls.requireClientCertificate = true
        tls.trustRoots = .file(pki.path("root.pem"))
        configuration.tls = tls
        let server = try await TestHTTPServer.start(configuration: configuration)
        server.route("/hello", respond: .ok("mutual"))
        let ca = pki.path("root.pem")
        let (out, code) = try await CommandTests.run(Get.self, [server.url("/hello"), "--ca-file", ca,
                                                               "--cert", pki.path("client-chain.pem"), "--key", pki.path("client.key")])
        #expect(code == 0, "\(out.standardError)")
        #expect(out.standardOutput == "mutual")
        #expect(server.tlsHandshakes.first?.peerCertificates.isEmpty == false)
        // One PEM file with the chain and the key serves --cert alone.
        let combined = NSTemporaryDirectory() + "fiber-client-\(UUID().uuidString).pem"
        defer { try? FileManager.default.removeItem(atPath: combined) }
        FileManager.default.createFile(atPath: combined, contents: Data(pki.bytes("client-chain.pem") + pki.bytes("client.key")))
        let (both, bothCode) = try await CommandTests.run(Get.self, [server.url("/hello"), "--ca-file", ca, "--cert", combined])
        #expect(bothCode == 0 && both.standardOutput == "mutual", "\(both.standardError)")
        let (refused, refusedCode) = try await CommandTests.run(Get.self, [server.url("/hello"), "--ca-file", ca])
        #expect(refusedCode == FiberExitCode.tlsFailure.rawValue)
        #expect(refused.standardError.contains("client certificate"), "\(refused.standardError)")
        #expect(throws: (any Error).self) { _ = try Get.parse([server.url("/hello"), "--key", pki.path("client.key")]) }
        await server.shutdown()
    }

    @Test func noFollowPrintsTheRedirectItself() async throws {
        try await CommandTests.withServer { server in
            server.route("/moved", respond: .redirect(to: "/json"))
            let (followed, _) = try await CommandTests.run(Get.self, [server.url("/moved")])
            #expect(followed.standardOutput.contains(#"{"ok":true}"#))
            let (out, code) = try await CommandTests.run(Get.self, [server.url("/moved"), "--no-follow", "--json-output"])
            #expect(code == 0)
            let report = try #require(try JSONSerialization.jsonObject(with: Data(out.standardOutput.utf8)) as? [String: Any])
            #expect(report["status"] as? Int == 302)
            let headers = report["headers"] as? [[String: String]] ?? []
            #expect(headers.contains { $0["name"] == "Location" && $0["value"] == "/json" })
            #expect(server.lastRequest?.path == "/moved")
        }
    }

    @Test func jsonOutputHasStatusHeadersAndTimings() async throws {
        try await CommandTests.withServer { server in
            let (out, code) = try await CommandTests.run(Get.self, [server.url("/json"), "--json-output"])
            #expect(code == 0)
            #expect(out.standardOutput.hasSuffix("}\n") && !out.standardOutput.contains("\n{"))
            let report = try #require(try JSONSerialization.jsonObject(with: Data(out.standardOutput.utf8)) as? [String: Any])
            #expect(report["status"] as? Int == 200 && report["reason"] as? String == "OK")
            #expect(report["bodyBytes"] as? Int == #"{"ok":true}"#.utf8.count)
            let headers = report["headers"] as? [[String: String]] ?? []
            #expect(headers.contains { $0["name"]?.lowercased() == "content-type" && $0["value"] == "application/json" })
            let timing = try #require(report["timing"] as? [String: Any])
            let total = try #require(timing["totalMs"] as? Double)
            let firstByte = try #require(timing["firstByteMs"] as? Double)
            #expect(total > 0 && firstByte <= total)
            #expect(timing["connectMs"] is Double && timing["tlsMs"] is NSNull && timing["reusedConnection"] as? Bool == false)
            let (missing, missingCode) = try await CommandTests.run(Get.self, [server.url("/missing"), "--json-output"])
            #expect(missingCode == 4)
            #expect((try JSONSerialization.jsonObject(with: Data(missing.standardOutput.utf8)) as? [String: Any])?["status"] as? Int == 404)
        }
    }

    @Test func wsTakesTheSameTLSOptions() async throws {
        let pki = try await TestCertificates.shared()
        let server = try await TestWebSocketServer.start(tls: .server(identity: pki.serverIdentity()))
        #expect(server.url.hasPrefix("wss://"))
        let (out, code) = try await CommandTests.run(WS.self, [server.url, "--ca-file", pki.path("root.pem"), "--send", "secure hello"])
        #expect(code == 0, "\(out.standardError)")
        #expect(out.standardOutput == "secure hello\n")
        let (refused, refusedCode) = try await CommandTests.run(WS.self, [server.url, "--send", "x"])
        #expect(refusedCode == FiberExitCode.tlsFailure.rawValue, "\(refused.standardError)")
        let (insecure, insecureCode) = try await CommandTests.run(WS.self, [server.url, "--insecure", "--send", "anyway"])
        #expect(insecureCode == 0 && insecure.standardOutput == "anyway\n")
        await server.shutdown()
    }
}
