// The WebSocket client benchmark, driven by Scripts/bench-websocket.
//
//   WebSocketBench serve [--deflate]                  echo server (TestWebSocketServer) on 127.0.0.1; prints the port;
//                                                     --deflate: accept permessage-deflate
//   WebSocketBench idle URL COUNT [--hold S] [--ping S] [--deflate]
//                                                     opens COUNT idle connections; RSS per connection, time to open;
//                                                     then holds them S seconds, pinging every S (Scripts/soak)
//   WebSocketBench echo URL SIZE CONNECTIONS SECONDS  echo round trips; messages per second
//
// Every mode is bounded in count and time and talks to 127.0.0.1 only.
import FiberRuntime
import FiberTesting
import FiberWebSocket
import Foundation
import HTTPBenchKit

let arguments = CommandLine.arguments
guard arguments.count >= 2 else {
    print("usage: WebSocketBench serve [--deflate] | idle URL COUNT [--hold S] [--ping S] [--deflate] | echo URL SIZE CONNECTIONS SECONDS")
    exit(2)
}

switch arguments[1] {
case "serve":
    raiseOpenFileLimit()
    // One server per loop would spread load, but one is enough at 2 cores and keeps it simple.
    let handshake = TestWebSocketServer.Handshake(deflate: arguments.dropFirst(2).contains("--deflate"))
    let server = try await TestWebSocketServer.start(behavior: .echo, handshake: handshake, backlog: 4096)
    // Unbuffered: the script waits for this line.
    FileHandle.standardOutput.write(Data("\(server.port)\n".utf8))
    while true { try await Task.sleep(for: .seconds(3600)) }
case "idle":
    guard arguments.count >= 4, let count = Int(arguments[3]) else { exit(2) }
    var idle = IdleBenchmark(url: arguments[2], count: count)
    var rest = arguments.dropFirst(4)
    while let option = rest.popFirst() {
        switch option {
        case "--deflate": idle.deflate = true
        case "--hold", "--ping":
            guard let seconds = rest.popFirst().flatMap(Int.init), (1...600).contains(seconds) else { exit(2) }
            if option == "--hold" { idle.hold = .seconds(seconds) } else { idle.pingInterval = .seconds(seconds) }
        default: exit(2)
        }
    }
    try await idle.run()
case "echo":
    guard arguments.count == 6, let size = Int(arguments[3]), let connections = Int(arguments[4]),
          let seconds = Double(arguments[5]) else { exit(2) }
    try await EchoBenchmark(url: arguments[2], size: size, connections: connections, seconds: seconds).run()
default:
    print("unknown mode \(arguments[1])")
    exit(2)
}
