import ArgumentParser
import Fiber
import FiberCommandLine

/// `fiber`: requests, load tests and the demo, on Fiber's runtime.
@main
struct FiberMain: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fiber",
        abstract: "An HTTP client, load tester and demo on Fiber's runtime.",
        version: FiberVersion.current,
        subcommands: [Get.self, Head.self, Post.self, Put.self, Patch.self, Delete.self, Bench.self, WS.self, Demo.self])
}

/// `fiber demo`: a tour against servers inside this process, on loopback only.
struct Demo: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo", abstract: "A tour of the library against loopback servers started in this process.")

    @Option(help: "Seconds of the load test (default 5).")
    var loadSeconds = 5

    func run() async throws {
        print("== The Fiber API: the interceptor pipeline")
        try await PipelineDemo.run()
        print("\n== HTTP/1.1 over the runtime")
        try await HTTPDemo.run()
        print("\n== A load test (FiberLoad)")
        try await LoadDemo.run(seconds: max(1, loadSeconds))
        print("\n== A WebSocket echo session")
        try await WebSocketDemo.run()
        print("\n== TCP echo over the runtime")
        try await EchoDemo.run()
    }
}
