import AsyncHTTPClient
import HTTPBenchKit
import NIOCore
import NIOPosix

// AsyncHTTPClient as a peer in the HTTP/1.1 client benchmark (issue 3); run by
// `Scripts/bench-http` (see `HTTPBenchKit` for what a run does).
//
// The client gets its own MultiThreadedEventLoopGroup of one thread, like Fiber's
// `EventLoopGroup(loopCount: 1)`, rather than `.singleton` (one loop per core): the
// script pins the process to one CPU, and a second event loop would only compete
// with the first. The pool keeps up to `concurrency` HTTP/1.1 connections to the
// host. The request loops are plain tasks on Swift's global pool, as AsyncHTTPClient
// is normally used: SwiftNIO's event loops are not task executors, so every request
// goes from the pool to the event loop thread and back.

let options = HTTPBenchOptions.parse(Array(CommandLine.arguments.dropFirst()))

var configuration = HTTPClient.Configuration()
configuration.httpVersion = .http1Only
configuration.connectionPool = .init(
    idleTimeout: .seconds(120), concurrentHTTP1ConnectionsPerHostSoftLimit: options.concurrency
)
let eventLoopGroup = MultiThreadedEventLoopGroup(numberOfThreads: 1)
let client = HTTPClient(eventLoopGroup: eventLoopGroup, configuration: configuration)
let url = options.url

let bench = HTTPBench(client: "ahc", options: options, executor: nil) {
    let response = try await client.execute(HTTPClientRequest(url: url), timeout: .seconds(30))
    let body = try await response.body.collect(upTo: 1 << 20)
    guard response.status == .ok else { throw AHCBenchError.status(Int(response.status.code)) }
    return body.readableBytes
}
await bench.run()

do {
    try await client.shutdown().get()  // the future-returning overload wins at top level
    try await eventLoopGroup.shutdownGracefully()
} catch {
    print("warning: shutting down: \(error)")
}

enum AHCBenchError: Error { case status(Int) }
