import AsyncHTTPClient
import HTTPBenchKit
import NIOCore
import NIOPosix

// AsyncHTTPClient as a peer in the HTTP/1.1 client benchmark; run by
// `Scripts/bench-http` (see `HTTPBenchKit` for what a run does).
//
// The client gets its own MultiThreadedEventLoopGroup of one thread, like Fiber's
// `EventLoopGroup(loopCount: 1)`, rather than `.singleton` (one loop per core): the
// script pins the process to one CPU, and a second event loop would only compete
// with the first. The pool keeps up to `concurrency` HTTP/1.1 connections to the
// host. The request loops are plain tasks on Swift's global pool, as AsyncHTTPClient
// is normally used: SwiftNIO's event loops are not task executors, so every request
// goes from the pool to the event loop thread and back.
//
// The TLS benchmark (`Scripts/bench-tls`) adds: `--ca` (NIOSSL trust roots
// from a PEM file), `--new-connection` (`Connection: close`, a handshake per request)
// and `--stream` (the body's buffers are counted and dropped as they arrive).
// `--no-resumption` changes nothing: AsyncHTTPClient (NIOSSL) keeps no client
// session cache, so every handshake is a full one whatever it is given.

let options = HTTPBenchOptions.parse(Array(CommandLine.arguments.dropFirst()))

var configuration = HTTPClient.Configuration()
configuration.httpVersion = .http1Only
configuration.connectionPool = .init(
    idleTimeout: .seconds(120), concurrentHTTP1ConnectionsPerHostSoftLimit: options.concurrency
)
if let ca = options.caFile {
    // NIOSSL's TLSConfiguration and NIOSSLTrustRoots, named through implicit members
    // so that this target needs no direct dependency on swift-nio-ssl.
    configuration.tlsConfiguration = .makeClientConfiguration()
    configuration.tlsConfiguration?.trustRoots = .file(ca)
}
let eventLoopGroup = MultiThreadedEventLoopGroup(numberOfThreads: 1)
let client = HTTPClient(eventLoopGroup: eventLoopGroup, configuration: configuration)
let url = options.url
let newConnection = options.newConnectionPerRequest
let streamBody = options.streamBody

let bench = HTTPBench(client: "ahc", options: options, executor: nil) {
    var request = HTTPClientRequest(url: url)
    if newConnection { request.headers.add(name: "Connection", value: "close") }
    let response = try await client.execute(request, timeout: .seconds(streamBody ? 600 : 30))
    if streamBody {
        var bytes = 0
        for try await buffer in response.body { bytes += buffer.readableBytes }
        guard response.status == .ok else { throw AHCBenchError.status(Int(response.status.code)) }
        return bytes
    }
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
