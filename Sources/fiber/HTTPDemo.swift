import FiberRuntime
import FiberTesting

/// The demo of the HTTP/1.1 transport: the loopback test server in this
/// process, and a client showing keep-alive, a redirect, a streamed body,
/// gzip, a typed error, and per-request timings.
enum HTTPDemo {
    static func run() async throws {
        let group = EventLoopGroup(loopCount: 2, name: "http-demo")
        let server = try await TestHTTPServer.start(on: group.loops[0])
        server.route("/hello", respond: .ok("Hello, world!"))
        server.route("/old", respond: .redirect(to: "/hello", status: 301))
        server.route("/numbers", respond: .chunked((1...5).map { "\($0)\n" }))
        server.route("/broken", respond: .fault(.conflictingFraming))
        print("test server listening on \(server.baseURL) (loop 0)")

        let client = HTTPClient(eventLoopGroup: group)
        // Requests run on the caller's loop when it has one: this task prefers loop 1, so all
        // three use loop 1's pool and its one keep-alive connection.
        try await Task(executorPreference: group.loops[1]) {
            for path in ["/hello", "/hello", "/old"] {
                let response = try await client.execute(HTTPClientRequest(url: server.url(path)))
                print("GET \(path) → \(response.status) \(String(decoding: response.body, as: UTF8.self))"
                    + (response.redirectCount > 0 ? " (after \(response.redirectCount) redirect)" : ""))
                print("    \(response.timing)")
            }
        }.value
        let streamed = try await client.stream(HTTPClientRequest(url: server.url("/numbers")))
        var lines = 0
        for try await chunk in streamed.body { lines += chunk.filter { $0 == 10 }.count }
        print("GET /numbers → \(streamed.status), \(lines) lines streamed in chunks")
        do {
            _ = try await client.execute(HTTPClientRequest(url: server.url("/broken")))
        } catch let error as HTTPClientError {
            print("GET /broken → refused: \(error)")
        }

        let clock = ContinuousClock()
        let count = 2000
        let start = clock.now
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            for _ in 0..<16 {
                tasks.addTask(executorPreference: group.loops[1]) {
                    for _ in 0..<(count / 16) { _ = try await client.execute(HTTPClientRequest(url: server.url("/hello"))) }
                }
            }
            try await tasks.waitForAll()
        }
        let seconds = (clock.now - start).seconds
        let stats = await client.statistics()
        print("\(count) keep-alive GETs over 16 tasks: \(Int(Double(count) / seconds)) requests per second, "
            + "\(stats.open) connections open (\(server.connectionCount) accepted by the server)")
        await client.shutdown()
        await server.shutdown()
        try await group.shutdown()
    }
}
