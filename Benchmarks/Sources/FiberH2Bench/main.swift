import Fiber
import FiberRuntime
import HTTPBenchKit
import Synchronization

// Fiber over HTTP/2 in the HTTP/2 client benchmark, run by `Scripts/bench-h2` against
// nginx over TLS (see `HTTPBenchKit` for what a run does).
//
// One event loop, like the one-thread event loop group of `AHCH2Bench`. `--connections N`
// makes N clients of `maxConnectionsPerHost = 1` on that loop, and request i of the
// process goes to client i mod N, as the other peers of the benchmark do (8 connections
// of 64 streams each whatever a pool would choose by itself). `httpVersion = .automatic`:
// ALPN h2 then http/1.1; a response that did not come over HTTP/2 fails the run.
// `--api` measures what users call, `Fiber.get` with no interceptors over a transport
// holding the runtime client (the `fiber-h2-api` client); without it, the runtime's
// `HTTPClient.execute` (`fiber-h2`).

let options = HTTPBenchOptions.parse(Array(CommandLine.arguments.dropFirst()))

let group = EventLoopGroup(loopCount: 1)
var configuration = HTTPClient.Configuration()
configuration.httpVersion = .automatic
configuration.maxConnectionsPerHost = 1
if let ca = options.caFile { configuration.tls.trustRoots = .file(ca) }
let clients = (0..<options.connections).map { _ in HTTPClient(eventLoopGroup: group, configuration: configuration) }
let url = options.url
let next = Atomic<Int>(0)

let bench: HTTPBench
if options.throughFiberAPI {
    let (origin, path) = splitOrigin(url)
    let fibers = (0..<options.connections).map { _ in
        Fiber(origin) { $0.transport = HTTPTransport(eventLoopGroup: group, configuration: configuration) }
    }
    bench = HTTPBench(client: "fiber-h2-api", options: options, executor: group.loops[0]) {
        let index = next.add(1, ordering: .relaxed).oldValue % fibers.count
        let response = try await fibers[index].get(path)
        guard response.httpVersion == .http2 else { throw FiberH2BenchError.version("\(String(describing: response.httpVersion))") }
        guard response.statusCode == 200 else { throw FiberH2BenchError.status(response.statusCode) }
        return response.data.count
    }
} else {
    bench = HTTPBench(client: "fiber-h2", options: options, executor: group.loops[0]) {
        let index = next.add(1, ordering: .relaxed).oldValue % clients.count
        let response = try await clients[index].execute(HTTPClientRequest(url: url))
        guard response.version == .http2 else { throw FiberH2BenchError.version("\(response.version)") }
        guard response.status == 200 else { throw FiberH2BenchError.status(response.status) }
        return response.body.count
    }
}
await bench.run()

do {
    for client in clients { await client.shutdown() }
    try await group.shutdown()
} catch {
    print("warning: shutting down: \(error)")
}

enum FiberH2BenchError: Error { case status(Int), version(String) }
