// A process that runs a ServiceGroup with a `FiberService`, for the test that
// stops it with SIGTERM (FiberServiceLifecycleTests/SignalProcessTests):
//
//     FiberLifecycleProbe <http base URL> <ws URL>
//
// It opens a reconnecting WebSocket to the ws URL (registered with the service)
// and sends `GET /slow` to the HTTP server, then reports on stdout, one line
// each, what happened to them; it exits 0 once the group has shut down.
import Fiber
import FiberServiceLifecycle
import FiberWebSocket
import Foundation
import Logging
import ServiceLifecycle

/// One line on stdout, written at once (the test reads the file while the process runs).
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// Sends the request that is in flight when the signal comes, and one more after it.
struct Worker: Service {
    let fiber: Fiber
    let socket: ReconnectingWebSocket

    func run() async throws {
        async let feed: Void = socket.start()
        async let events: Void = report(socket.events)
        let response = try await fiber.get("/slow")
        say("in-flight request answered: \(response.statusCode) \(response.text)")
        do {
            _ = try await fiber.get("/slow")
            say("a request after the shutdown was sent")
        } catch let error as FiberError where error.isShutdown {
            say("a request after the shutdown was refused")
        }
        // The client's service shuts down first (it is last in the group); this one after it.
        try? await gracefulShutdown()
        await feed
        await events
    }

    private func report(_ events: WebSocketEvents) async {
        for await event in events { say("websocket: \(event)") }
    }
}

let arguments = CommandLine.arguments
guard arguments.count == 3 else {
    say("usage: FiberLifecycleProbe <http base URL> <ws URL>")
    exit(2)
}
let fiber = Fiber(arguments[1]) { $0.transport = HTTPTransport(eventLoopGroup: .shared) }
let service = FiberService(fiber, gracePeriod: .seconds(20))
let socket = service.webSockets.register(ReconnectingWebSocket(connect: { [url = arguments[2]] in WebSocketClient.connect(to: url) },
                                                               strategy: .fixedDelay(0.05)))
var logger = Logger(label: "FiberLifecycleProbe")
logger.logLevel = .info
let group = ServiceGroup(services: [Worker(fiber: fiber, socket: socket), service],
                         gracefulShutdownSignals: [.sigterm], logger: logger)
do {
    try await group.run()
    say("the group shut down")
    // Without the exit handlers: under AddressSanitizer, LeakSanitizer would report the
    // weak-reference side tables of runtime objects still alive on the shared loops
    // (which it cannot trace through a tagged reference count) and turn the status into 1.
    // The process itself is not what the test checks for leaks.
    _exit(0)
} catch {
    say("the group failed: \(error)")
    exit(1)
}
