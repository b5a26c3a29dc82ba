import FiberRuntime

// The demo: a TCP echo over the runtime on loopback. Later issues grow it
// into the full tour of the client.
let group = EventLoopGroup(loopCount: 2, name: "demo")
let listener = try await SocketListener.listen(host: "127.0.0.1", port: 0, on: group.loops[0])
print("echo server listening on \(listener.localAddress)")

let server = Task {
    for try await connection in listener.connections {
        Task {
            while let chunk = try await connection.read() { try await connection.write(chunk) }
            await connection.close()
        }
    }
}

let client = try await SocketStream.connect(host: "localhost", port: listener.port, on: group.loops[1])
print("connected to \(client.remoteAddress.map(String.init(describing:)) ?? "?") from loop \(client.loop.index)")
let clock = ContinuousClock()
let rounds = 1000
let start = clock.now
for i in 0..<rounds {
    let message = Array("ping \(i)\n".utf8)
    try await client.write(message)
    var echoed: [UInt8] = []
    while echoed.count < message.count, let chunk = try await client.read() { echoed += chunk }
    precondition(echoed == message, "echo mismatch")
}
let elapsed = clock.now - start
print("\(rounds) echo round trips in \(elapsed) (\(Int(Double(rounds) / (Double(elapsed.components.attoseconds) / 1e18 + Double(elapsed.components.seconds)))) per second)")
await client.close()
await listener.close()
server.cancel()
try await group.shutdown()
print("event loop group shut down cleanly")
