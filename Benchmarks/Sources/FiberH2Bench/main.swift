import Fiber
import FiberRuntime
import HTTPBenchKit
import Synchronization

// Fiber's HTTP client in the HTTP/2 client benchmark; run by `Scripts/bench-h2` when
// FIBER_H2=1 (see `HTTPBenchKit` for what a run does) against nginx over TLS.
//
// Not yet a target of Benchmarks/Package.swift: it needs `HTTPClient.Configuration.httpVersion`
// and `HTTPClientResponse.version`. To wire it, add beside `AHCH2Bench`:
//
//     .executableTarget(
//         name: "FiberH2Bench",
//         dependencies: [
//             "HTTPBenchKit",
//             .product(name: "Fiber", package: "Fiber"),
//             .product(name: "FiberRuntime", package: "Fiber"),
//         ]
//     ),
//
// One event loop, like the one-thread event loop group of `AHCH2Bench`. `--connections N`
// makes N clients of `maxConnectionsPerHost = 1` on that loop, and request i of the
// process goes to client i mod N, as the other peers of the benchmark do (8 connections
// of 64 streams each whatever a pool would choose by itself). `httpVersion = .automatic`:
// ALPN h2 then http/1.1; a response that did not come over HTTP/2 fails the run.

let options = HTTPBenchOptions.parse(Array(CommandLine.arguments.dropFirst()))

let group = EventLoopGroup(loopCount: 1)
var configuration = HTTPClient.Configuration()
configuration.httpVersion = .automatic
configuration.maxConnectionsPerHost = 1
if let ca = options.caFile { configuration.tls.trustRoots = .file(ca) }
let clients = (0..<options.connections).map { _ in HTTPClient(eventLoopGroup: group, configuration: configuration) }
let url = options.url
let next = Atomic<Int>(0)

let bench = HTTPBench(client: "fiber-h2", options: options, executor: group.loops[0]) {
    let index = next.add(1, ordering: .relaxed).oldValue % clients.count
    let response = try await clients[index].execute(HTTPClientRequest(url: url))
    guard response.version == .http2 else { throw FiberH2BenchError.version("\(response.version)") }
    guard response.status == 200 else { throw FiberH2BenchError.status(response.status) }
    return response.body.count
}
await bench.run()

do {
    for client in clients { try await client.shutdown() }
    try await group.shutdown()
} catch {
    print("warning: shutting down: \(error)")
}

enum FiberH2BenchError: Error { case status(Int), version(String) }
