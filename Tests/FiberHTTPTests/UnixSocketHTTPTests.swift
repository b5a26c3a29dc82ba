@testable import FiberRuntime
import FiberTesting
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A socket path under /tmp, unique to this test, short enough for `sun_path`.
func temporarySocketPath(_ name: String = "http") -> String {
    "/tmp/fiber-\(name)-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).sock"
}

/// `withClient` with the test server on a fresh Unix socket, whose file is removed afterwards.
func withUnixServer<T>(
    configure: (inout HTTPClient.Configuration, _ socketPath: String) -> Void = { _, _ in },
    _ body: (HTTPClient, TestHTTPServer, _ socketPath: String) async throws -> T
) async throws -> T {
    let path = temporarySocketPath()
    defer { unlink(path) }
    return try await withClient(configure: { configure(&$0, path) }, server: { try await TestHTTPServer.start(unixPath: path, on: $0) }) {
        try await body($0, $1, path)
    }
}

/// A Unix socket bound at `path` that never listens (as a server that died leaves none,
/// but with certainty): a connect is refused. The caller closes the descriptor.
func boundSocket(at path: String) throws -> Int32 {
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
        for (i, byte) in path.utf8.prefix(raw.count - 1).enumerated() { raw[i] = byte }
    }
    let status = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
    }
    guard fd >= 0, status == 0 else {
        close(fd)
        throw TransportError(.other, operation: "bind", address: "unix:\(path)")
    }
    return fd
}

@Suite("HTTP over Unix domain sockets", .timeLimit(.minutes(1)))
struct UnixSocketHTTPTests {
    @Test func anHTTPUnixURLReachesTheServerOnItsSocket() async throws {
        try await withUnixServer { client, server, path in
            server.route("/hello") { request in .ok("hello over \(request.header("Host") ?? "-")") }
            let url = server.url("/hello?x=1")
            #expect(url.hasPrefix("http+unix://%2Ftmp%2Ffiber-http-"))
            let response = try await client.get(url)
            #expect(response.status == 200 && response.body == "hello over localhost".bytes)
            let seen = try #require(server.lastRequest)
            #expect(seen.target == "/hello?x=1")
            // Kept alive and reused like any connection.
            let again = try await client.get(url)
            #expect(again.timing.reusedConnection && again.timing.dns == nil)
            #expect(await client.statistics().open == 1)
            _ = path
        }
    }

    @Test func theTargetKeepsTheDecodedPathAndAnEncodedOrigin() throws {
        let target = try HTTPTarget("http+unix://%2Fvar%2Frun%2Fdocker.sock/v1.43/info?all=1#top")
        #expect(target.unixSocketPath == "/var/run/docker.sock" && target.pathAndQuery == "/v1.43/info?all=1")
        #expect(target.hostHeader == "localhost" && target.origin == "http+unix://%2Fvar%2Frun%2Fdocker.sock")
        #expect(try HTTPTarget("HTTP+UNIX://%2Frun%2Fa%20b.sock").pathAndQuery == "/")
        #expect(try HTTPTarget("http+unix://%2Frun%2Fa%20b.sock").unixSocketPath == "/run/a b.sock")
        #expect(try HTTPTarget("ws+unix://%2Frun%2Fws.sock/chat", schemes: .webSocket).unixSocketPath == "/run/ws.sock")
        #expect(try HTTPTarget("http://example.com/").unixSocketPath == nil)
        for bad in ["http+unix:///path", "http+unix://%2Frun%2Fx.sock:80/", "http+unix://user@%2Fx/", "http+unix://%zz/",
                    "http+unix://%2Fx%00y/", "http+unix://%2Fx/a b", "ws+unix://%2Fx/#frag"] {
            #expect(throws: HTTPClientError.self, "\(bad)") {
                try HTTPTarget(bad, schemes: bad.hasPrefix("ws") ? .webSocket : .http)
            }
        }
    }

    /// Two servers on two sockets: two origins in the pool, each request at its own server.
    @Test func thePoolKeepsEachSocketApart() async throws {
        try await withUnixServer { client, first, _ in
            let otherPath = temporarySocketPath("other")
            defer { unlink(otherPath) }
            let second = try await TestHTTPServer.start(unixPath: otherPath, on: first.loop)
            first.route("/who", respond: .ok("first"))
            second.route("/who", respond: .ok("second"))
            for _ in 0..<3 {
                let fromFirst = try await client.get(first.url("/who"))
                #expect(fromFirst.body == "first".bytes)
                let fromSecond = try await client.get(second.url("/who"))
                #expect(fromSecond.body == "second".bytes)
            }
            #expect(await client.statistics().open == 2)
            #expect(first.requestCount == 3 && second.requestCount == 3)
            await second.shutdown()
        }
    }

    /// A relative redirect stays on the socket.
    @Test func aRelativeRedirectStaysOnTheSocket() async throws {
        try await withUnixServer { client, server, _ in
            server.route("/old", respond: .redirect(to: "/new"))
            server.route("/new", respond: .ok("moved here"))
            let response = try await client.get(server.url("/old"))
            #expect(response.body == "moved here".bytes && response.redirectCount == 1)
            #expect(server.requestCount == 2)
        }
    }

    /// An origin pinned to a socket keeps its URL, `Host` and pool key; no name is resolved.
    @Test func anOriginPinnedToASocketGoesThere() async throws {
        try await withUnixServer(configure: { $0.unixSocketOrigins = ["http://api.invalid": $1] }) { client, server, _ in
            server.route("/v1/ping") { request in .ok("pong to \(request.header("Host") ?? "-")") }
            let response = try await client.get("http://api.invalid/v1/ping")
            #expect(response.body == "pong to api.invalid".bytes)
            #expect(response.timing.dns == nil)
        }
        // Another port or scheme of the same host is another origin, and not pinned.
        var configuration = HTTPClient.Configuration()
        configuration.unixSocketOrigins = ["http://api.invalid": "/run/api.sock"]
        #expect(configuration.unixSocketPath(for: try HTTPTarget("http://api.invalid/x")) == "/run/api.sock")
        for other in ["http://api.invalid:8080/x", "https://api.invalid/x", "http://www.api.invalid/x"] {
            #expect(configuration.unixSocketPath(for: try HTTPTarget(other)) == nil, "\(other)")
        }
    }

    /// An https origin pinned to a socket runs TLS over it, verified against the origin's host:
    /// the test certificate names `localhost`, so another name pinned to the same socket fails TLS.
    @Test func anHTTPSOriginPinnedToASocketIsVerifiedAgainstItsHost() async throws {
        let certificates = try await TestCertificates.shared()
        let path = temporarySocketPath("tls")
        defer { unlink(path) }
        var serverConfiguration = TestHTTPServer.Configuration()
        serverConfiguration.tls = .server(identity: certificates.serverIdentity())
        try await withClient(configure: {
            $0.tls = certificates.clientTrustingRoot
            $0.unixSocketOrigins = ["https://localhost": path, "https://other.invalid": path]
        }, server: { try await TestHTTPServer.start(unixPath: path, on: $0, configuration: serverConfiguration) }) { client, server in
            server.route("/secure") { request in .ok("tls for \(request.header("Host") ?? "-")") }
            let response = try await client.get("https://localhost/secure")
            #expect(response.body == "tls for localhost".bytes)
            await expectHTTPError(.tls) { _ = try await client.get("https://other.invalid/secure") }
            #expect(server.requestCount == 1)
        }
    }

    @Test func pinnedOriginsThatCannotWorkAreRefusedByValidation() {
        for (origin, path) in [("http://API.example", "/run/a.sock"), ("http://a.example/path", "/run/a.sock"),
                               ("http://a.example:80", "/run/a.sock"), ("ftp://a.example", "/run/a.sock"),
                               ("http://a.example", String(repeating: "x", count: 200)), ("http://a.example", "")] {
            var configuration = HTTPClient.Configuration()
            configuration.unixSocketOrigins = [origin: path]
            #expect(throws: HTTPClient.ConfigurationError.self, "\(origin) → \(path.prefix(20))") { try configuration.validate() }
        }
        var good = HTTPClient.Configuration()
        good.unixSocketOrigins = ["http://a.example": "/run/a.sock", "https://b.example:8443": "/run/b.sock"]
        #expect(throws: Never.self) { try good.validate() }
    }

    /// No socket file, a path too long for `sun_path`, a socket nobody listens on: typed errors naming the path.
    @Test func socketFailuresAreTypedAndNameThePath() async throws {
        try await withUnixServer { client, server, _ in
            let missing = "/tmp/fiber-no-such-\(getpid()).sock"
            let long = "/tmp/" + String(repeating: "d", count: 120) + ".sock"
            let stalePath = temporarySocketPath("stale")
            defer { unlink(stalePath) }
            // A socket bound and never listening: connecting to it is refused.
            let bound = try boundSocket(at: stalePath)
            defer { close(bound) }
            let cases: [(path: String, kind: TransportError.Kind)] = [
                (missing, .noSuchSocket), (long, .invalidSocketPath), (stalePath, .connectionRefused),
            ]
            for (path, kind) in cases {
                let url = HTTPTarget(scheme: "http+unix", host: path, port: 80, pathAndQuery: "/").description
                do {
                    _ = try await client.get(url)
                    Issue.record("\(path) must fail")
                } catch let error as HTTPClientError {
                    #expect(error.kind == .transport && error.transport?.kind == kind, "\(error)")
                    #expect(error.transport?.address == "unix:\(path)" && "\(error)".contains(path), "\(error)")
                }
            }
        }
    }
}
