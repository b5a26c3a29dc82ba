// vapor/websocket-kit (SwiftNIO) as a peer in the WebSocket client benchmark
//, run by `Scripts/bench-websocket` against the same echo server as
// Fiber's `WebSocketBench echo` and `Scripts/ws_bench_client.py`.
//
//   WebSocketKitBench echo URL SIZE CONNECTIONS SECONDS
//
// The same workload as `WebSocketBench echo`: CONNECTIONS connections are opened
// first; then each one, in a loop until SECONDS have passed, sends a SIZE-byte
// binary message and waits for its echo (closed loop, one message in flight per
// connection). It prints the same result line:
//
//   echo size=S connections=C messages=M seconds=T msgs_per_second=R
//
// As AHCBench does for the HTTP benchmark, the client gets its own
// MultiThreadedEventLoopGroup of one thread (the script pins the process to one
// CPU; a second event loop would only compete with the first). The loops are plain
// tasks on Swift's global pool, using websocket-kit's async API as an application
// would: `try await ws.send(...)`, and the echo handed from the `onBinary` callback
// (which runs on the event loop) to the task through an AsyncStream.
// No automatic pings, no compression (websocket-kit has none).
//
// Bounded: the measured loop stops at the deadline; a connection whose channel
// closes ends its stream, so its loop stops too. 127.0.0.1 only (the URL given).
import Foundation
import NIOCore
import NIOPosix
import WebSocketKit

#if canImport(Glibc)
import Glibc
#endif

let arguments = CommandLine.arguments
guard arguments.count == 6, arguments[1] == "echo", let size = Int(arguments[3]),
      let connections = Int(arguments[4]), let seconds = Double(arguments[5]),
      size >= 0, connections > 0, seconds > 0 else {
    print("usage: WebSocketKitBench echo URL SIZE CONNECTIONS SECONDS")
    exit(2)
}
let url = arguments[2]

// RLIMIT_NOFILE to its hard limit, as WebSocketBench does.
do {
    var limit = rlimit()
    if getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 {
        limit.rlim_cur = limit.rlim_max
        _ = setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
    }
}

/// One open connection: the socket and the sizes of the binary messages it received.
struct Connection: Sendable {
    let socket: WebSocket
    let echoes: AsyncStream<Int>
}

func secondsOf(_ d: Duration) -> Double {
    Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
}

/// The echo run: everything it needs is in its fields, so that it runs off the main actor.
struct EchoRun: Sendable {
    let url: String
    let size: Int
    let connections: Int
    let seconds: Double
    let eventLoopGroup: MultiThreadedEventLoopGroup

    /// Opens one connection; the callbacks are set in `onUpgrade`, on the channel's event
    /// loop, before any frame can arrive.
    func open(_ configuration: WebSocketClient.Configuration) async throws -> Connection {
        let (echoes, continuation) = AsyncStream<Int>.makeStream(bufferingPolicy: .unbounded)
        let promise = eventLoopGroup.any().makePromise(of: WebSocket.self)
        WebSocket.connect(to: url, configuration: configuration, on: eventLoopGroup) { ws in
            ws.onBinary { _, buffer in continuation.yield(buffer.readableBytes) }
            ws.onText { _, text in continuation.yield(text.utf8.count) }
            ws.onClose.whenComplete { _ in continuation.finish() }
            promise.succeed(ws)
        }.whenFailure { error in
            continuation.finish()
            promise.fail(error)
        }
        return Connection(socket: try await promise.futureResult.get(), echoes: echoes)
    }

    func run() async throws {
        var settings = WebSocketClient.Configuration()
        // The default (16 KiB) would refuse the 64 KiB echoes.
        settings.maxFrameSize = max(size, 1 << 14)
        let configuration = settings
        let size = self.size
        let payload = [UInt8](repeating: 0x61, count: size)
        let sockets = try await withThrowingTaskGroup(of: Connection.self) { group in
            for _ in 0..<connections { group.addTask { try await open(configuration) } }
            var all: [Connection] = []
            for try await connection in group { all.append(connection) }
            return all
        }
        let clock = ContinuousClock()
        let deadline = clock.now + .milliseconds(Int(seconds * 1000))
        let start = clock.now
        let total = try await withThrowingTaskGroup(of: Int.self) { group in
            for connection in sockets {
                group.addTask {
                    var iterator = connection.echoes.makeAsyncIterator()
                    var count = 0
                    while clock.now < deadline {
                        try await connection.socket.send(payload)
                        guard let received = await iterator.next(), received == size else { break }
                        count += 1
                    }
                    return count
                }
            }
            var sum = 0
            for try await count in group { sum += count }
            return sum
        }
        let elapsed = secondsOf(clock.now - start)
        print(String(format: "echo size=%d connections=%d messages=%d seconds=%.2f msgs_per_second=%.0f",
                     size, connections, total, elapsed, Double(total) / elapsed))
        // Close handshakes, then wait for the channels to close (the server closes its side).
        for connection in sockets { connection.socket.close(promise: nil) }
        for connection in sockets { try? await connection.socket.onClose.get() }
    }
}

let eventLoopGroup = MultiThreadedEventLoopGroup(numberOfThreads: 1)
do {
    try await EchoRun(url: url, size: size, connections: connections, seconds: seconds,
                      eventLoopGroup: eventLoopGroup).run()
} catch {
    print("error: \(error)")
    try? await eventLoopGroup.shutdownGracefully()
    exit(1)
}
try? await eventLoopGroup.shutdownGracefully()
