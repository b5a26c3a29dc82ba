import AsyncHTTPClient
import HTTPBenchKit
import NIOCore
import NIOPosix
import Synchronization

// AsyncHTTPClient as a peer in the HTTP/2 client benchmark; run by `Scripts/bench-h2`
// (see `HTTPBenchKit` for what a run does) against nginx over TLS.
//
// `httpVersion = .automatic`: ALPN offers h2 and http/1.1 and nginx picks h2. An
// AsyncHTTPClient pool keeps one HTTP/2 connection per event loop and host, so
// `--connections N` makes N clients on the same one-thread event loop group, and
// request i of the process goes to client i mod N: `--concurrency 512 --connections 8`
// keeps about 64 streams open on each of 8 connections. A response that did not come
// over HTTP/2 fails the run.

let options = HTTPBenchOptions.parse(Array(CommandLine.arguments.dropFirst()))

var configuration = HTTPClient.Configuration()
configuration.httpVersion = .automatic
configuration.connectionPool = .init(idleTimeout: .seconds(120), concurrentHTTP1ConnectionsPerHostSoftLimit: 1)
configuration.tlsConfiguration = .makeClientConfiguration()
if let ca = options.caFile { configuration.tlsConfiguration?.trustRoots = .file(ca) }
let eventLoopGroup = MultiThreadedEventLoopGroup(numberOfThreads: 1)
let clients = (0..<options.connections).map { _ in HTTPClient(eventLoopGroup: eventLoopGroup, configuration: configuration) }
let url = options.url
let next = Atomic<Int>(0)

let bench = HTTPBench(client: "ahc-h2", options: options, executor: nil) {
    let index = next.add(1, ordering: .relaxed).oldValue % clients.count
    let response = try await clients[index].execute(HTTPClientRequest(url: url), timeout: .seconds(30))
    let body = try await response.body.collect(upTo: 1 << 20)
    guard response.version == .http2 else { throw AHCH2BenchError.version("\(response.version)") }
    guard response.status == .ok else { throw AHCH2BenchError.status(Int(response.status.code)) }
    return body.readableBytes
}
await bench.run()

do {
    for client in clients { try await client.shutdown().get() }
    try await eventLoopGroup.shutdownGracefully()
} catch {
    print("warning: shutting down: \(error)")
}

enum AHCH2BenchError: Error { case status(Int), version(String) }
