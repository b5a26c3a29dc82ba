import Fiber
import FiberRuntime
import HTTPBenchKit

// Fiber's HTTP client in the HTTP/1.1 client benchmark; run by
// `Scripts/bench-http` (see `HTTPBenchKit` for what a run does).
//
// One event loop, like the one-thread MultiThreadedEventLoopGroup of `AHCBench`;
// the client keeps up to `concurrency` connections to the host. The request loops
// are tasks created with `Task(executorPreference: group.loops[0])`, the runtime's
// recommended way: a request resumed by the loop stays on the loop thread, with no
// hop to Swift's global pool per await.
//
// The TLS benchmark (`Scripts/bench-tls`) adds: `--ca` (trust roots from a
// PEM file), `--new-connection` (`Connection: close`, a handshake per request),
// `--no-resumption` (`tls.sessionResumption = false`) and `--stream` (the body is
// streamed with `client.stream` and discarded chunk by chunk, never collected).
//
// `--api` measures what users call: `Fiber(origin) { $0.transport = … }.get(path)`
// with no interceptors, over a transport holding the same runtime client (the
// `fiber-api` client of `Scripts/bench-http`).

let options = HTTPBenchOptions.parse(Array(CommandLine.arguments.dropFirst()))

let group = EventLoopGroup(loopCount: 1)
var configuration = HTTPClient.Configuration()
configuration.maxConnectionsPerHost = options.concurrency
if let ca = options.caFile { configuration.tls.trustRoots = .file(ca) }
if options.noResumption { configuration.tls.sessionResumption = false }
let client = HTTPClient(eventLoopGroup: group, configuration: configuration)
let url = options.url
let headers: HTTPHeaders = options.newConnectionPerRequest ? ["Connection": "close"] : [:]

let bench: HTTPBench
if options.throughFiberAPI {
    let transport = HTTPTransport(eventLoopGroup: group, configuration: configuration)
    let (origin, path) = splitOrigin(url)
    let fiber = Fiber(origin) { $0.transport = transport; $0.defaultHeaders = headers }
    bench = HTTPBench(client: "fiber-api", options: options, executor: group.loops[0]) {
        let response = try await fiber.get(path)
        guard response.statusCode == 200 else { throw FiberBenchError.status(response.statusCode) }
        return response.data.count
    }
} else if options.streamBody {
    bench = HTTPBench(client: "fiber", options: options, executor: group.loops[0]) {
        let response = try await client.stream(HTTPClientRequest(url: url, headers: headers))
        guard response.status == 200 else { throw FiberBenchError.status(response.status) }
        var bytes = 0
        for try await chunk in response.body { bytes += chunk.count }
        return bytes
    }
} else {
    bench = HTTPBench(client: "fiber", options: options, executor: group.loops[0]) {
        let response = try await client.execute(HTTPClientRequest(url: url, headers: headers))
        guard response.status == 200 else { throw FiberBenchError.status(response.status) }
        return response.body.count
    }
}
await bench.run()

do {
    try await client.shutdown()
    try await group.shutdown()
} catch {
    print("warning: shutting down: \(error)")
}

enum FiberBenchError: Error { case status(Int) }

