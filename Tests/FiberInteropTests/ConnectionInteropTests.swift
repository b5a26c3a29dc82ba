import FiberRuntime
import FiberTesting
import Foundation
import Synchronization
import Testing

/// Keep-alive, pooling, connections nginx closes, status codes, header limits
/// and timings, against a real nginx.
///
/// `$connection` (nginx's serial number of the connection) and
/// `$connection_requests` let the server itself say which connection served
/// a request, so reuse is checked from both ends.
@Suite(.serialized, .timeLimit(.minutes(2)),
       .enabled(if: NginxServer.isInstalled, "nginx is not installed at /usr/sbin/nginx (Scripts/setup installs it)"))
struct ConnectionInteropTests {
    static let server = """
        location = /hello { default_type text/plain; return 200 "Hello, world!"; }
        location = /conn { default_type text/plain; return 200 "$connection $connection_requests"; }
        location = /close { keepalive_timeout 0; default_type text/plain; return 200 "$connection $connection_requests"; }
        location = /one-request { keepalive_requests 1; default_type text/plain; return 200 "$connection $connection_requests"; }
        location = /short { keepalive_timeout 1s; default_type text/plain; return 200 "$connection $connection_requests"; }
        location = /boom { default_type text/plain; return 500 "boom"; }
        location = /header60k { add_header X-Big $k60; default_type text/plain; return 200 "60k"; }
        location = /header70k { add_header X-Big $k70; default_type text/plain; return 200 "70k"; }
        location = /header2k { add_header X-Big "$k1$k1"; default_type text/plain; return 200 "2k"; }
        # nginx refuses a configuration token over 4 KiB: big values are built from variables.
        set $k1 "\(String(repeating: "x", count: 1024))";
        set $k4 "$k1$k1$k1$k1";
        set $k16 "$k4$k4$k4$k4";
        set $k60 "$k16$k16$k16$k4$k4$k4";
        set $k70 "$k16$k16$k16$k16$k4$k1$k1";
        """

    /// Parses "<connection> <requests>" from the `$connection $connection_requests` locations.
    static func servedBy(_ response: HTTPClientResponse) -> (connection: Int, requests: Int)? {
        let parts = response.text.split(separator: " ").compactMap { Int($0) }
        return parts.count == 2 ? (parts[0], parts[1]) : nil
    }

    @Test func keepAliveGetOfASmallBody() async throws {
        try await withNginx(server: Self.server) { nginx in
            try await withClient { client in
                for i in 0..<5 {
                    let response = try await client.execute(request(nginx.url("/hello")))
                    #expect(response.status == 200)
                    #expect(response.reason == "OK")
                    #expect(response.body == Array("Hello, world!".utf8))
                    #expect(response.headers["Content-Length"] == "13")
                    #expect(response.headers["content-type"] == "text/plain")
                    #expect(response.headers["Server"]?.hasPrefix("nginx") == true)
                    #expect(response.headers["Connection"] == "keep-alive")
                    #expect(response.headers["Content-Encoding"] == nil)
                    #expect(response.url == nginx.url("/hello"))
                    #expect(response.redirectCount == 0)
                    #expect(response.timing.reusedConnection == (i > 0), "request \(i): \(response.timing)")
                    #expect(response.timing.firstByte > .zero, "\(response.timing)")
                    #expect(response.timing.total >= response.timing.firstByte, "\(response.timing)")
                    #expect(response.timing.requestWritten <= response.timing.total, "\(response.timing)")
                    if i == 0 {
                        #expect(response.timing.connect != nil, "a new connection has a connect time: \(response.timing)")
                        #expect(response.timing.dns == nil, "an IP literal is not resolved: \(response.timing)")
                    } else {
                        #expect(response.timing.connect == nil, "\(response.timing)")
                    }
                    let statistics = await client.statistics()
                    #expect(statistics.open == 1, "\(statistics)")
                    #expect(statistics.idle == 1, "\(statistics)")
                    #expect(statistics.leased == 0, "\(statistics)")
                }
            }
        }
    }

    @Test func sequentialRequestsAreServedByOneNginxConnection() async throws {
        try await withNginx(server: Self.server) { nginx in
            try await withClient { client in
                var connections: Set<Int> = []
                for i in 1...10 {
                    let response = try await client.execute(request(nginx.url("/conn")))
                    let served = try #require(Self.servedBy(response), "\(response.text)")
                    connections.insert(served.connection)
                    #expect(served.requests == i, "nginx counts request \(served.requests) on its connection, expected \(i)")
                }
                #expect(connections.count == 1, "nginx saw connections \(connections)")
                #expect(await client.statistics().open == 1)
            }
        }
    }

    @Test func fiftyConcurrentRequestsShareFourConnections() async throws {
        try await withNginx(server: Self.server) { nginx in
            try await withClient(configure: { $0.maxConnectionsPerHost = 4 }) { client in
                let maxOpen = Locked(0)
                let sampling = Locked(true)
                let monitor = Task {
                    while sampling.withLock({ $0 }) {
                        let open = await client.statistics().open
                        maxOpen.withLock { $0 = max($0, open) }
                        try? await Task.sleep(for: .microseconds(200))
                    }
                }
                let url = nginx.url("/conn")
                let results = try await withThrowingTaskGroup(of: HTTPClientResponse.self) { group in
                    for _ in 0..<50 { group.addTask { try await client.execute(request(url)) } }
                    var all: [HTTPClientResponse] = []
                    for try await response in group { all.append(response) }
                    return all
                }
                sampling.withLock { $0 = false }
                await monitor.value

                #expect(results.count == 50)
                #expect(results.allSatisfy { $0.status == 200 })
                let served = results.compactMap(Self.servedBy)
                #expect(served.count == 50)
                let connections = Set(served.map(\.connection))
                #expect(connections.count <= 4, "nginx saw \(connections.count) connections: \(connections.sorted())")
                #expect(maxOpen.withLock { $0 } <= 4, "statistics showed \(maxOpen.withLock { $0 }) open")
                let statistics = await client.statistics()
                #expect(statistics.open <= 4 && statistics.open >= 1, "\(statistics)")
                #expect(statistics.idle == statistics.open, "\(statistics)")
                #expect(statistics.leased == 0 && statistics.waiting == 0 && statistics.connecting == 0, "\(statistics)")
                // And they are reused: one more round needs no new connection.
                let again = try await client.execute(request(url))
                #expect(again.timing.reusedConnection)
                #expect(Self.servedBy(again).map { connections.contains($0.connection) } == true)
            }
        }
    }

    @Test func connectionCloseFromNginxOpensANewConnectionPerRequest() async throws {
        try await withNginx(server: Self.server) { nginx in
            try await withClient { client in
                for path in ["/close", "/one-request"] {
                    var connections: Set<Int> = []
                    for _ in 0..<5 {
                        let response = try await client.execute(request(nginx.url(path)))
                        #expect(response.status == 200)
                        #expect(response.headers["Connection"] == "close", "\(path): \(response.headers)")
                        #expect(!response.timing.reusedConnection, "\(path): \(response.timing)")
                        let served = try #require(Self.servedBy(response))
                        #expect(served.requests == 1)
                        connections.insert(served.connection)
                        let statistics = await waitForStatistics(client) { $0.open == 0 }
                        #expect(statistics.open == 0, "a connection the server closes is not kept: \(statistics)")
                    }
                    #expect(connections.count == 5, "\(path): nginx saw connections \(connections.sorted())")
                }
                // Keep-alive still works after those.
                _ = try await client.execute(request(nginx.url("/hello")))
                let reused = try await client.execute(request(nginx.url("/hello")))
                #expect(reused.timing.reusedConnection)
            }
        }
    }

    @Test func idleConnectionClosedByNginxIsNotUsed() async throws {
        try await withNginx(server: Self.server) { nginx in
            try await withClient { client in
                let first = try await client.execute(request(nginx.url("/short")))
                let before = try #require(Self.servedBy(first))
                try await Task.sleep(for: .milliseconds(1500))  // nginx's keepalive_timeout here is 1 s
                // The client saw nginx close the idle connection.
                let statistics = await waitForStatistics(client) { $0.open == 0 }
                #expect(statistics.open == 0, "\(statistics)")

                let second = try await client.execute(request(nginx.url("/short")))
                #expect(second.status == 200)
                #expect(!second.timing.reusedConnection)
                let after = try #require(Self.servedBy(second))
                #expect(after.connection != before.connection)
                #expect(after.requests == 1)

                // A POST (not retried when a connection dies) is fine too: the dead one is never leased.
                try await Task.sleep(for: .milliseconds(1500))
                let post = try await client.execute(request(nginx.url("/short"), method: "POST", body: .string("data")))
                #expect(post.status == 200)
                #expect(!post.timing.reusedConnection)
            }
        }
    }

    @Test func requestsAroundNginxKeepaliveTimeoutSucceed() async throws {
        // Requests sent when nginx is about to close the idle connection (its
        // keepalive_timeout is 1 s): either the client sees the close first, or
        // its GET meets a closed socket and is retried once on a new connection.
        try await withNginx(server: Self.server) { nginx in
            try await withClient { client in
                _ = try await client.execute(request(nginx.url("/short")))
                for pause in [980, 995, 1000, 1003, 1006, 1010, 1020] {
                    try await Task.sleep(for: .milliseconds(pause))
                    let response = try await client.execute(request(nginx.url("/short")))
                    #expect(response.status == 200, "after \(pause) ms")
                }
            }
        }
    }

    @Test func errorStatusesAreResponses() async throws {
        try await withNginx(server: Self.server) { nginx in
            try await withClient { client in
                let missing = try await client.execute(request(nginx.url("/no/such/file.html")))
                #expect(missing.status == 404)
                #expect(missing.reason == "Not Found")
                #expect(missing.text.contains("404 Not Found"))
                #expect(missing.headers["Content-Length"] == String(missing.body.count))

                let boom = try await client.execute(request(nginx.url("/boom")))
                #expect(boom.status == 500)
                #expect(boom.reason == "Internal Server Error")
                #expect(boom.text == "boom")
                #expect(boom.timing.reusedConnection, "a 404 keeps the connection alive")

                let post = try await client.execute(request(nginx.url("/no/such/file.html"), method: "POST", body: .string("x")))
                #expect(post.status == 405 || post.status == 404, "\(post.status)")

                let hello = try await client.execute(request(nginx.url("/hello")))
                #expect(hello.text == "Hello, world!")
                #expect(hello.timing.reusedConnection)
                #expect(await client.statistics().open == 1)
            }
        }
    }

    @Test func headRequestsGetHeadersAndNoBody() async throws {
        try await withNginx(server: Self.server) { nginx in
            try await withClient { client in
                for i in 0..<3 {
                    let head = try await client.execute(request(nginx.url("/hello"), method: "HEAD"))
                    #expect(head.status == 200)
                    #expect(head.headers["Content-Length"] == "13")
                    #expect(head.body.isEmpty)
                    #expect(head.timing.reusedConnection == (i > 0))
                }
                let get = try await client.execute(request(nginx.url("/hello")))
                #expect(get.text == "Hello, world!")
                #expect(get.timing.reusedConnection)
                let missing = try await client.execute(request(nginx.url("/nothing-here"), method: "HEAD"))
                #expect(missing.status == 404)
                #expect(missing.body.isEmpty)
                #expect(Int(missing.headers["Content-Length"] ?? "") ?? 0 > 0, "\(missing.headers)")
                let after = try await client.execute(request(nginx.url("/conn")))
                #expect(after.timing.reusedConnection)
                #expect(Self.servedBy(after)?.requests == 6)
                #expect(await client.statistics().open == 1)
            }
        }
    }

    @Test func largeResponseHeaders() async throws {
        try await withNginx(server: Self.server) { nginx in
            try await withClient { client in
                // 60 KiB passes the default limit of 64 KiB.
                let big = try await client.execute(request(nginx.url("/header60k")))
                #expect(big.status == 200)
                #expect(big.text == "60k")
                let value = try #require(big.headers["X-Big"])
                #expect(value.utf8.count == 60 * 1024)
                #expect(value.utf8.allSatisfy { $0 == UInt8(ascii: "x") })
                // 70 KiB does not.
                await expectClientError(.headersTooLarge) { try await client.execute(request(nginx.url("/header70k"))) }
                // The connection that failed is closed, and the next request works on a new one.
                let statistics = await waitForStatistics(client) { $0.open == 0 }
                #expect(statistics.open == 0, "\(statistics)")
                let hello = try await client.execute(request(nginx.url("/hello")))
                #expect(hello.text == "Hello, world!")
                #expect(!hello.timing.reusedConnection)
            }
            try await withClient(configure: { $0.maxHeaderBytes = 1024 }) { client in
                let hello = try await client.execute(request(nginx.url("/hello")))
                #expect(hello.text == "Hello, world!", "a normal head fits in 1 KiB")
                await expectClientError(.headersTooLarge) { try await client.execute(request(nginx.url("/header2k"))) }
                let again = try await client.execute(request(nginx.url("/hello")))
                #expect(again.text == "Hello, world!")
                #expect(!again.timing.reusedConnection, "the connection whose head was too large is not reused")
            }
        }
    }
}
