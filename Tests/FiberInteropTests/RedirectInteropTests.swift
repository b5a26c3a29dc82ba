import FiberRuntime
import FiberTesting
import Foundation
import Testing

/// Redirects issued by nginx's `return 3xx`: which method and body the next
/// request carries (seen by nginx), loops, and the redirect limit.
@Suite(.serialized, .timeLimit(.minutes(2)),
       .enabled(if: NginxServer.isInstalled, "nginx is not installed at /usr/sbin/nginx (Scripts/setup installs it)"))
struct RedirectInteropTests {
    static let hops = 16

    static let server = """
        location = /r301 { return 301 /target; }
        location = /r302 { return 302 /target; }
        location = /r303 { return 303 /target; }
        location = /r307 { return 307 /target; }
        location = /r308 { return 308 /target; }
        location = /r307-store { return 307 /upload/r307.bin; }
        location = /r308-store { return 308 /upload/r308.bin; }
        location = /r307-file { return 307 /upload/r307-file.bin; }
        location = /relative { absolute_redirect off; return 302 /target?from=relative; }
        location = /target {
            default_type text/plain;
            return 200 "$request_method $request_uri len=[$http_content_length] te=[$http_transfer_encoding]";
        }
        location = /a { return 302 /b; }
        location = /b { return 302 /a; }
        location /upload/ { proxy_method PUT; proxy_pass http://127.0.0.1:{{PORT}}/store/; }
        location /store/ { dav_methods PUT; create_full_put_path on; }
        \((1..<hops).map { "location = /hop/\($0) { return 302 /hop/\($0 + 1); }" }.joined(separator: "\n"))
        location = /hop/\(hops) { default_type text/plain; return 200 "end"; }
        """

    @Test(arguments: [301, 302, 303, 307, 308])
    func getFollowsRedirect(status: Int) async throws {
        try await withNginx(server: Self.server) { nginx in
            try await withClient { client in
                let response = try await client.execute(request(nginx.url("/r\(status)")))
                #expect(response.status == 200)
                #expect(response.text == "GET /target len=[] te=[]")
                #expect(response.redirectCount == 1)
                #expect(response.url == nginx.url("/target"))
                #expect(response.timing.reusedConnection, "the redirect is followed on the same connection")
                #expect(await client.statistics().open == 1)
            }
        }
    }

    @Test(arguments: [301, 302, 303])
    func postBecomesGetWithoutBody(status: Int) async throws {
        try await withNginx(server: Self.server) { nginx in
            try await withClient { client in
                let response = try await client.execute(request(
                    nginx.url("/r\(status)"), method: "POST", headers: ["Content-Type": "text/plain"], body: .string("payload")))
                #expect(response.status == 200)
                #expect(response.text == "GET /target len=[] te=[]")
                #expect(response.redirectCount == 1)
            }
        }
    }

    @Test(arguments: [307, 308])
    func postKeepsMethodAndBody(status: Int) async throws {
        let payload = randomBytes(count: 300_000, seed: UInt64(status))
        try await withNginx(server: Self.server) { nginx in
            try await withClient { client in
                // Bytes in memory.
                let bytes = try await client.execute(request(nginx.url("/r\(status)-store"), method: "POST", body: .bytes(payload)))
                #expect(bytes.status == 201, "\(bytes.status) \(bytes.text)")
                #expect(bytes.redirectCount == 1)
                #expect(contents(of: nginx.file("store/r\(status).bin")) == payload)

                // A stream, made again for the second request.
                try FileManager.default.removeItem(atPath: nginx.file("store/r\(status).bin"))
                let stream = try await client.execute(request(
                    nginx.url("/r\(status)-store"), method: "POST",
                    body: .stream { chunks(of: payload, size: 32_768) }))
                #expect(stream.status == 201, "\(stream.status) \(stream.text)")
                #expect(contents(of: nginx.file("store/r\(status).bin")) == payload)

                // What the target saw: the method is kept.
                let seen = try await client.execute(request(nginx.url("/r\(status)"), method: "POST", body: .string("abc")))
                #expect(seen.text == "POST /target len=[3] te=[]")
            }
        }
    }

    @Test func postFileFollows307() async throws {
        let payload = randomBytes(count: 1_000_000, seed: 307)
        try await withNginx(server: Self.server) { nginx in
            let source = nginx.directory + "/source.bin"
            try write(payload, to: source)
            try await withClient { client in
                let response = try await client.execute(request(nginx.url("/r307-file"), method: "POST", body: .file(path: source)))
                #expect(response.status == 201, "\(response.status) \(response.text)")
                #expect(contents(of: nginx.file("store/r307-file.bin")) == payload)
            }
        }
    }

    @Test func relativeLocation() async throws {
        try await withNginx(server: Self.server) { nginx in
            try await withClient { client in
                let response = try await client.execute(request(nginx.url("/relative")))
                #expect(response.text == "GET /target?from=relative len=[] te=[]")
                #expect(response.url == nginx.url("/target?from=relative"))
            }
        }
    }

    @Test func redirectLoop() async throws {
        try await withNginx(server: Self.server) { nginx in
            try await withClient { client in
                await expectClientError(.redirectLoop) { try await client.execute(request(nginx.url("/a"))) }
                // The connection is fine afterwards.
                let response = try await client.execute(request(nginx.url("/target")))
                #expect(response.status == 200)
                #expect(response.timing.reusedConnection)
            }
        }
    }

    @Test func redirectLimit() async throws {
        try await withNginx(server: Self.server) { nginx in
            try await withClient { client in
                // Default limit 10: ten redirects pass, eleven do not.
                let ten = try await client.execute(request(nginx.url("/hop/\(Self.hops - 10)")))
                #expect(ten.text == "end")
                #expect(ten.redirectCount == 10)
                await expectClientError(.tooManyRedirects) {
                    try await client.execute(request(nginx.url("/hop/\(Self.hops - 11)")))
                }

                var options = HTTPClient.RequestOptions()
                options.redirects = RedirectPolicy(maxRedirects: 2)
                let two = try await client.execute(request(nginx.url("/hop/\(Self.hops - 2)")), options: options)
                #expect(two.redirectCount == 2)
                await expectClientError(.tooManyRedirects) {
                    try await client.execute(request(nginx.url("/hop/\(Self.hops - 3)")), options: options)
                }

                options.redirects = RedirectPolicy(maxRedirects: 0)
                let none = try await client.execute(request(nginx.url("/r301")), options: options)
                #expect(none.status == 301)
                #expect(none.headers["Location"] == nginx.url("/target"))
                #expect(none.redirectCount == 0)
                #expect(await client.statistics().open == 1)
            }
        }
    }
}
