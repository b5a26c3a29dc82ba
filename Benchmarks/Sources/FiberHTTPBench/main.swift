import FiberRuntime
import HTTPBenchKit

// Fiber's HTTP client in the HTTP/1.1 client benchmark (issue 3); run by
// `Scripts/bench-http` (see `HTTPBenchKit` for what a run does).
//
// One event loop, like the one-thread MultiThreadedEventLoopGroup of `AHCBench`;
// the client keeps up to `concurrency` connections to the host. The request loops
// are tasks created with `Task(executorPreference: group.loops[0])`, the runtime's
// recommended way: a request resumed by the loop stays on the loop thread, with no
// hop to Swift's global pool per await.

let options = HTTPBenchOptions.parse(Array(CommandLine.arguments.dropFirst()))

let group = EventLoopGroup(loopCount: 1)
var configuration = HTTPClient.Configuration()
configuration.maxConnectionsPerHost = options.concurrency
let client = HTTPClient(eventLoopGroup: group, configuration: configuration)
let url = options.url

let bench = HTTPBench(client: "fiber", options: options, executor: group.loops[0]) {
    let response = try await client.execute(HTTPClientRequest(url: url))
    guard response.status == 200 else { throw FiberBenchError.status(response.status) }
    return response.body.count
}
await bench.run()

do {
    try await client.shutdown()
    try await group.shutdown()
} catch {
    print("warning: shutting down: \(error)")
}

enum FiberBenchError: Error { case status(Int) }
