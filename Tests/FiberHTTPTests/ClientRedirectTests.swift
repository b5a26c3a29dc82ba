import FiberRuntime
import FiberTesting
import Testing

@Suite("HTTP client redirects", .timeLimit(.minutes(1)))
struct ClientRedirectTests {
    @Test func followsRedirectsWithTheMethodRules() async throws {
        try await withClient { client, server in
            for status in [301, 302, 303, 307, 308] {
                server.route("/r\(status)", respond: .redirect(to: "/target", status: status))
            }
            server.route("/target") { request in .ok("\(request.method) \(request.bodyText)") }
            for (status, expected) in [(301, "GET "), (302, "GET "), (303, "GET "), (307, "POST payload"), (308, "POST payload")] {
                let response = try await client.execute(HTTPClientRequest(url: server.url("/r\(status)"), method: "POST", body: .string("payload")))
                #expect(String(decoding: response.body, as: UTF8.self) == expected, "after \(status)")
                #expect(response.redirectCount == 1 && response.url == server.url("/target"))
            }
            let streamed = try await client.execute(HTTPClientRequest(url: server.url("/r307"), method: "PUT",
                                                                      body: .stream { [Array("re".utf8), Array("sent".utf8)].async }))
            #expect(String(decoding: streamed.body, as: UTF8.self) == "PUT resent")
        }
    }

    @Test func crossOriginRedirectsDropCredentials() async throws {
        try await withClient { client, first in
            let group = EventLoopGroup(loopCount: 1)
            let second = try await TestHTTPServer.start(on: group.loops[0])
            second.route("/landing") { request in
                .ok("auth=\(request.header("Authorization") ?? "none") cookie=\(request.header("Cookie") ?? "none") key=\(request.header("X-Key") ?? "none")")
            }
            first.route("/go", respond: .redirect(to: second.url("/landing")))
            let response = try await client.get(first.url("/go"), headers: ["Authorization": "Bearer secret", "Cookie": "s=1", "X-Key": "k"])
            #expect(String(decoding: response.body, as: UTF8.self) == "auth=none cookie=none key=k")
            await second.shutdown()
            try await group.shutdown()
        }
    }

    @Test func loopsLimitsAndOptOut() async throws {
        try await withClient { client, server in
            server.route("/a", respond: .redirect(to: "/b"))
            server.route("/b", respond: .redirect(to: "/a"))
            for i in 0..<12 { await server.route("/n\(i)", respond: .redirect(to: "/n\(i + 1)")) }
            await expectHTTPError(.redirectLoop) { _ = try await client.get(server.url("/a")) }
            await expectHTTPError(.tooManyRedirects) { _ = try await client.get(server.url("/n0")) }
            var options = HTTPClient.RequestOptions()
            options.redirects = .never
            let raw = try await client.get(server.url("/a"), options: options)
            #expect(raw.status == 302 && raw.headers["Location"] == "/b")
        }
    }
}
