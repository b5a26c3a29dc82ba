import Fiber
import FiberRuntime
import FiberTesting
import Foundation
import Testing

/// HTTP/2 against a real nginx: ALPN over TLS and h2c with prior knowledge,
/// many streams on one connection, a second connection when the server's
/// stream limit is reached, flow control on large bodies both ways, and the
/// pool at rest afterwards.
@Suite(.serialized, .timeLimit(.minutes(2)),
       .enabled(if: NginxServer.isInstalled, "nginx is not installed at /usr/sbin/nginx (Scripts/setup installs it)"))
struct HTTP2InteropTests {
    static func server(_ certificates: TestCertificates?, extra: String = "") -> String {
        (certificates.map {
            """
            ssl_certificate \($0.path("chain.pem"));
            ssl_certificate_key \($0.path("leaf.key"));
            ssl_protocols TLSv1.2 TLSv1.3;

            """
        } ?? "") + """
        location = /conn { default_type text/plain; return 200 "$connection $server_protocol"; }
        location = /hello { default_type text/plain; return 200 "hello, world!"; }
        location /files/ { }
        location /trailed/ { add_trailer X-Checksum "abc123"; }
        location /slow/ { limit_rate 40k; }
        location /dav/ { dav_methods PUT; create_full_put_path on; client_body_temp_path {{DIR}}/dav-temp; }
        \(extra)
        """
    }

    /// One loop, so that the per-host limit is the connection count of one pool.
    static let group = EventLoopGroup(loopCount: 1, name: "h2-interop")

    static func client(_ certificates: TestCertificates?, _ configure: (inout HTTPClient.Configuration) -> Void = { _ in }) -> HTTPClient {
        var configuration = HTTPClient.Configuration()
        if let certificates { configuration.tls = certificates.clientTrustingRoot }
        configure(&configuration)
        return HTTPClient(eventLoopGroup: group, configuration: configuration)
    }

    @Test func automaticPolicyNegotiatesHTTP2OverTLS() async throws {
        let certificates = try await TestCertificates.shared()
        try await withNginx(server: Self.server(certificates), tls: true, http2: true) { nginx in
            let client = Self.client(certificates)
            let response = try await client.execute(HTTPClientRequest(url: nginx.url("/conn")))
            #expect(response.status == 200)
            #expect(response.version == .http2)
            #expect(response.text.hasSuffix("HTTP/2.0"))
            let again = try await client.execute(HTTPClientRequest(url: nginx.url("/conn")))
            #expect(again.text.split(separator: " ").first == response.text.split(separator: " ").first, "one connection for both")
            #expect(again.timing.reusedConnection)
            await client.shutdown()
        }
    }

    @Test func http1OnlyStaysOnHTTP11OverTLS() async throws {
        let certificates = try await TestCertificates.shared()
        try await withNginx(server: Self.server(certificates), tls: true, http2: true) { nginx in
            let client = Self.client(certificates) { $0.httpVersion = .http1Only }
            let response = try await client.execute(HTTPClientRequest(url: nginx.url("/conn")))
            #expect(response.version == .http1_1)
            #expect(response.text.hasSuffix("HTTP/1.1"))
            // Per request, the other way: its own connection.
            var options = HTTPClient.RequestOptions()
            options.httpVersion = .automatic
            let h2 = try await client.execute(HTTPClientRequest(url: nginx.url("/conn")), options: options)
            #expect(h2.version == .http2)
            await client.shutdown()
        }
    }

    @Test func trailersArriveWithACollectedAndAStreamedResponse() async throws {
        let certificates = try await TestCertificates.shared()
        try await withNginx(server: Self.server(certificates), tls: true, http2: true, prepare: { root in
            try FileManager.default.createDirectory(atPath: root + "/trailed", withIntermediateDirectories: true)
            try Data(patternedBytes(70_000)).write(to: URL(fileURLWithPath: root + "/trailed/body.bin"))
        }) { nginx in
            let client = Self.client(certificates)
            let response = try await client.execute(HTTPClientRequest(url: nginx.url("/trailed/body.bin")))
            #expect(response.body == patternedBytes(70_000))
            #expect(response.trailers?.first(name: "x-checksum") == "abc123")
            #expect(response.headers.first(name: "x-checksum") == nil, "trailers stay apart from the head's fields")
            let streamed = try await client.stream(HTTPClientRequest(url: nginx.url("/trailed/body.bin")))
            #expect(try await streamed.body.collect() == patternedBytes(70_000))
            let trailers = try await streamed.trailers()
            #expect(trailers?.first(name: "x-checksum") == "abc123", "a streamed body's trailers, once it was read")
            await client.shutdown()
        }
    }

    @Test func priorKnowledgeSpeaksH2C() async throws {
        try await withNginx(server: Self.server(nil), http2: true) { nginx in
            let client = Self.client(nil) { $0.httpVersion = .http2PriorKnowledge }
            let response = try await client.execute(HTTPClientRequest(url: nginx.url("/hello")))
            #expect(response.version == .http2)
            #expect(response.text == "hello, world!")
            await client.shutdown()
        }
    }

    @Test func manyConcurrentStreamsShareOneConnection() async throws {
        let certificates = try await TestCertificates.shared()
        try await withNginx(server: Self.server(certificates), tls: true, http2: true) { nginx in
            let client = Self.client(certificates) { $0.maxConnectionsPerHost = 1 }
            let connections = try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<100 {
                    group.addTask { try await client.execute(HTTPClientRequest(url: nginx.url("/conn"))).text }
                }
                return try await group.reduce(into: Set<String>()) { $0.insert($1) }
            }
            #expect(connections.count == 1, "\(connections)")
            let statistics = await client.statistics()
            #expect(statistics.open == 1 && statistics.waiting == 0 && statistics.leased == 0)
            await client.shutdown()
        }
    }

    @Test func fullConnectionsOpenAnotherUpToTheLimit() async throws {
        let certificates = try await TestCertificates.shared()
        try await withNginx(server: Self.server(certificates), http: "http2_max_concurrent_streams 2;", tls: true, http2: true,
                            prepare: { root in
            try FileManager.default.createDirectory(atPath: root + "/slow", withIntermediateDirectories: true)
            try Data(patternedBytes(60_000)).write(to: URL(fileURLWithPath: root + "/slow/60k.bin"))
        }) { nginx in
            let client = Self.client(certificates) { $0.maxConnectionsPerHost = 3 }
            let sizes = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<6 {
                    group.addTask { try await client.execute(HTTPClientRequest(url: nginx.url("/slow/60k.bin"))).body.count }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(sizes == Array(repeating: 60_000, count: 6))
            let statistics = await client.statistics()
            #expect(statistics.open == 3, "six slow streams at two per connection: three connections, \(statistics)")
            await client.shutdown()
        }
    }

    @Test func largeBodiesBothWaysThroughFlowControl() async throws {
        let certificates = try await TestCertificates.shared()
        let payload = patternedBytes(5 * 1024 * 1024, seed: 7)
        try await withNginx(server: Self.server(certificates), tls: true, http2: true, prepare: { root in
            try FileManager.default.createDirectory(atPath: root + "/files", withIntermediateDirectories: true)
            try Data(payload).write(to: URL(fileURLWithPath: root + "/files/big.bin"))
            try FileManager.default.createDirectory(atPath: root + "/dav", withIntermediateDirectories: true)
        }) { nginx in
            let client = Self.client(certificates)
            let collected = try await client.execute(HTTPClientRequest(url: nginx.url("/files/big.bin")))
            #expect(collected.version == .http2)
            #expect(collected.body == payload)

            // A slow consumer: the stream's window holds the server back, the data stays intact.
            let streamed = try await client.stream(HTTPClientRequest(url: nginx.url("/files/big.bin")))
            var received: [UInt8] = []
            var chunks = 0
            for try await chunk in streamed.body {
                received += chunk
                chunks += 1
                if chunks % 16 == 0 { try await Task.sleep(for: .milliseconds(5)) }
            }
            #expect(received == payload)

            // An upload larger than the stream's initial window, in memory and streamed.
            var put = try HTTPClientRequest(url: nginx.url("/dav/up.bin"), method: "PUT")
            put.body = .bytes(payload)
            let stored = try await client.execute(put)
            #expect(stored.status == 201 || stored.status == 204)
            let back = try await client.execute(HTTPClientRequest(url: nginx.url("/dav/up.bin")))
            #expect(back.body == payload)

            var streamedPut = try HTTPClientRequest(url: nginx.url("/dav/streamed.bin"), method: "PUT")
            let parts = stride(from: 0, to: payload.count, by: 100_000).map { Array(payload[$0..<min($0 + 100_000, payload.count)]) }
            streamedPut.body = .stream(length: payload.count) {
                AsyncStream { continuation in
                    for part in parts { continuation.yield(part) }
                    continuation.finish()
                }
            }
            let streamedStored = try await client.execute(streamedPut)
            #expect(streamedStored.status == 201 || streamedStored.status == 204)
            let streamedBack = try await client.execute(HTTPClientRequest(url: nginx.url("/dav/streamed.bin")))
            #expect(streamedBack.body == payload)

            let statistics = await client.statistics()
            #expect(statistics.leased == 0 && statistics.waiting == 0)
            await client.shutdown()
        }
    }
}

/// HTTP/2 through `Fiber`: configured with `Fiber.Configuration.http`, the
/// interceptors run as for HTTP/1.1 and the response says its version.
@Suite(.serialized, .timeLimit(.minutes(2)),
       .enabled(if: NginxServer.isInstalled, "nginx is not installed at /usr/sbin/nginx (Scripts/setup installs it)"))
struct FiberHTTP2InteropTests {
    @Test func fiberSpeaksHTTP2WhenTheServerPicksIt() async throws {
        let certificates = try await TestCertificates.shared()
        try await withNginx(server: HTTP2InteropTests.server(certificates), tls: true, http2: true) { nginx in
            let seen = Locked<[String]>([])
            let fiber = Fiber(nginx.url("")) {
                $0.http.tls = certificates.clientTrustingRoot
                $0.http.maxConnectionsPerHost = 1
                $0.interceptors = [AnyInterceptor("probe") { request, next in
                    let response = try await next(request)
                    seen.withLock { $0.append(response.httpVersion?.description ?? "none") }
                    return response
                }]
            }
            let responses = try await withThrowingTaskGroup(of: FiberResponse.self) { group in
                for _ in 0..<20 { group.addTask { try await fiber.get("/conn") } }
                return try await group.reduce(into: [FiberResponse]()) { $0.append($1) }
            }
            #expect(responses.allSatisfy { $0.httpVersion == .http2 && $0.text.hasSuffix("HTTP/2.0") })
            #expect(Set(responses.map { $0.text }).count == 1, "twenty streams on one connection")
            #expect(seen.withLock { $0 } == Array(repeating: "HTTP/2", count: 20), "the interceptor sees the version too")
            let statistics = await fiber.connectionStatistics()
            #expect(statistics?.open == 1 && statistics?.leased == 0)
            await fiber.shutdown(gracePeriod: .seconds(1))
        }
    }

    @Test func fiberCanBeHeldToHTTP11() async throws {
        let certificates = try await TestCertificates.shared()
        try await withNginx(server: HTTP2InteropTests.server(certificates), tls: true, http2: true) { nginx in
            let fiber = Fiber(nginx.url("")) {
                $0.http.tls = certificates.clientTrustingRoot
                $0.http.httpVersion = .http1Only
            }
            let response = try await fiber.get("/conn")
            #expect(response.httpVersion == .http1_1)
            #expect(response.text.hasSuffix("HTTP/1.1"))
            await fiber.shutdown(gracePeriod: .seconds(1))
        }
    }
}

/// HTTP/2 against nghttpd (nghttp2's own server): TLS and h2c, a 1 MiB file
/// through the flow-control windows, an upload echoed back, and trailers.
@Suite(.serialized, .timeLimit(.minutes(2)),
       .enabled(if: NghttpdServer.isInstalled, "nghttpd is not installed (Scripts/setup installs nghttp2-server)"))
struct NghttpdInteropTests {
    static let group = EventLoopGroup(loopCount: 1, name: "nghttpd-interop")

    func withNghttpd(_ certificates: TestCertificates?, _ body: (NghttpdServer, HTTPClient) async throws -> Void) async throws {
        let payload = patternedBytes(1 << 20, seed: 9)
        let server = try await NghttpdServer.start(certificates: certificates, options: ["--echo-upload", "--trailer=x-check: ok"]) { root in
            try Data(payload).write(to: URL(fileURLWithPath: root + "/big.bin"))
        }
        var configuration = HTTPClient.Configuration()
        if let certificates { configuration.tls = certificates.clientTrustingRoot } else { configuration.httpVersion = .http2PriorKnowledge }
        configuration.maxConnectionsPerHost = 1
        let client = HTTPClient(eventLoopGroup: Self.group, configuration: configuration)
        do {
            try await body(server, client)
        } catch {
            await client.shutdown()
            _ = await server.stop()
            throw error
        }
        await client.shutdown()
        #expect(await server.stop(), "nghttpd stopped on SIGTERM")
    }

    @Test(arguments: [true, false])
    func downloadsUploadsAndTrailers(tls: Bool) async throws {
        let certificates = tls ? try await TestCertificates.shared() : nil
        try await withNghttpd(certificates) { server, client in
            let big = try await client.execute(HTTPClientRequest(url: server.url("/big.bin")))
            #expect(big.version == .http2)
            #expect(big.body == patternedBytes(1 << 20, seed: 9))
            #expect(big.trailers?.first(name: "x-check") == "ok")
            let upload = patternedBytes(300_000, seed: 4)
            let echoed = try await client.execute(HTTPClientRequest(url: server.url("/echo"), method: "POST", body: .bytes(upload)))
            #expect(echoed.body == upload)
            let parallel = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<32 { group.addTask { try await client.execute(HTTPClientRequest(url: server.url("/big.bin"))).body.count } }
                return try await group.reduce(0, +)
            }
            #expect(parallel == 32 << 20, "32 streams on one connection, each window given back as it is read")
            let statistics = await client.statistics()
            #expect(statistics.open == 1 && statistics.leased == 0)
        }
    }
}
