@testable import FiberRuntime
import FiberTesting
import Testing

/// A group, a loopback test server (or the one `server` starts) and a client on it;
/// afterwards checks that the client left no connection leased or waiting, then shuts all down.
func withClient<T>(
    configure: (inout HTTPClient.Configuration) -> Void = { _ in },
    server start: (EventLoop) async throws -> TestHTTPServer = { try await TestHTTPServer.start(on: $0) },
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: (HTTPClient, TestHTTPServer) async throws -> T
) async throws -> T {
    let group = EventLoopGroup(loopCount: 1, name: "http-test")
    var configuration = HTTPClient.Configuration()
    configuration.readIdleTimeout = .seconds(10)
    configure(&configuration)
    let client = HTTPClient(eventLoopGroup: group, configuration: configuration)
    let server = try await start(group.loops[0])
    do {
        let result = try await body(client, server)
        let stats = await client.statistics()
        #expect(stats.leased == 0 && stats.waiting == 0 && stats.connecting == 0, "pool not at rest: \(stats)", sourceLocation: sourceLocation)
        await client.shutdown()
        await server.shutdown()
        #expect(await client.statistics().open == 0, sourceLocation: sourceLocation)
        try await group.shutdown()
        return result
    } catch {
        await client.shutdown()
        await server.shutdown()
        try? await group.shutdown()
        throw error
    }
}

extension HTTPClient {
    func get(_ url: String, headers: HTTPHeaders = [:], options: RequestOptions = RequestOptions()) async throws -> HTTPClientResponse {
        try await execute(HTTPClientRequest(url: url, headers: headers), options: options)
    }
}

/// The client's statistics once `condition` holds, or the last ones seen after `timeout`.
func statistics(of client: HTTPClient, within timeout: Duration = .seconds(5),
                where condition: (ConnectionPoolStatistics) -> Bool) async throws -> ConnectionPoolStatistics {
    let clock = ContinuousClock()
    let deadline = clock.now + timeout
    var stats = await client.statistics()
    while !condition(stats), clock.now < deadline {
        try await Task.sleep(for: .milliseconds(5))
        stats = await client.statistics()
    }
    return stats
}

/// The body of a streamed GET of `url`, each chunk checked to be at most one inflater chunk.
func streamedBody(_ client: HTTPClient, _ url: String, sourceLocation: SourceLocation = #_sourceLocation) async throws -> [UInt8] {
    let streamed = try await client.stream(HTTPClientRequest(url: url))
    var all: [UInt8] = []
    for try await chunk in streamed.body {
        #expect(chunk.count <= Inflater.chunkSize, sourceLocation: sourceLocation)
        all += chunk
    }
    return all
}

/// Expects `body` to throw an `HTTPClientError` of `kind`.
func expectHTTPError(
    _ kind: HTTPClientError.Kind, sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> Void
) async {
    do {
        try await body()
        Issue.record("expected \(kind), but it succeeded", sourceLocation: sourceLocation)
    } catch let error as HTTPClientError {
        #expect(error.kind == kind, "got \(error)", sourceLocation: sourceLocation)
    } catch {
        Issue.record("expected HTTPClientError \(kind), got \(error)", sourceLocation: sourceLocation)
    }
}

extension String {
    var bytes: [UInt8] { Array(utf8) }
}
