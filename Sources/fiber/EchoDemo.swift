import FiberRuntime

/// The demo of the runtime: a TCP echo server and client on loopback, each on
/// its own event loop, a thousand round trips, and a clean shutdown.
enum EchoDemo {
    static func run() async throws {
        let group = EventLoopGroup(loopCount: 2, name: "demo")
        let listener = try await SocketListener.listen(host: "127.0.0.1", port: 0, on: group.loops[0])
        print("echo server listening on \(listener.localAddress) (loop 0)")

        let server = Task(executorPreference: group.loops[0]) {
            for try await connection in listener.connections {
                Task(executorPreference: group.loops[0]) {
                    while let chunk = try await connection.read() { try await connection.write(chunk) }
                    await connection.close()
                }
            }
        }

        // The client task prefers its stream's loop, so its awaits cost no thread hop.
        let clientLoop = group.loops[1]
        let report = try await Task(executorPreference: clientLoop) { () async throws -> String in
            let client = try await SocketStream.connect(host: "localhost", port: listener.port, on: clientLoop)
            print("connected to \(client.remoteAddress.map { "\($0)" } ?? "?") from loop \(client.loop.index)")
            let clock = ContinuousClock()
            let rounds = 10_000
            let start = clock.now
            for i in 0..<rounds {
                let message = Array("ping \(i)\n".utf8)
                try await client.write(message)
                var echoed: [UInt8] = []
                while echoed.count < message.count, let chunk = try await client.read() { echoed += chunk }
                guard echoed == message else { throw DemoError.mismatch(round: i) }
            }
            let seconds = (clock.now - start).seconds
            await client.close()
            return "\(rounds) echo round trips in \(format3(seconds)) s: \(Int(Double(rounds) / seconds)) per second"
        }.value
        print(report)

        await listener.close()
        server.cancel()
        try await group.shutdown()
        print("event loop group shut down: every socket closed, every thread joined")
    }

    enum DemoError: Error { case mismatch(round: Int) }

    private static func format3(_ value: Double) -> String {
        let thousandths = Int((value * 1000).rounded())
        let fraction = String(thousandths % 1000)
        return "\(thousandths / 1000).\(String(repeating: "0", count: 3 - fraction.count))\(fraction)"
    }
}
