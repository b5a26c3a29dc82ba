import FiberRuntime

/// A TCP relay on 127.0.0.1 in front of a server that holds back the bytes of
/// every connection but the first for `delay`: behind it, a TLS handshake (so
/// a pooled connection's setup) takes that long, while the first connection
/// serves at full speed.
final class SlowSetupRelay: Sendable {
    /// The port clients connect to.
    var port: Int { listener.port }
    /// Connections clients opened so far (the server sees the delayed ones only later).
    var acceptedCount: Int { relays.withLock { $0.count } }
    private let listener: SocketListener
    private let relays = Locked<[Task<Void, Never>]>([])
    private let accepting = Locked<Task<Void, Never>?>(nil)

    private init(listener: SocketListener) {
        self.listener = listener
    }

    /// Starts relaying to `upstreamPort` on 127.0.0.1.
    ///
    /// - Throws: `TransportError` when it cannot listen.
    static func start(to upstreamPort: Int, delayingAllButTheFirstBy delay: Duration, on loop: EventLoop) async throws -> SlowSetupRelay {
        let relay = SlowSetupRelay(listener: try await SocketListener.listen(on: loop))
        let task = Task(executorPreference: loop) { [listener = relay.listener] in
            var accepted = 0
            do {
                for try await client in listener.connections {
                    accepted += 1
                    let wait = accepted == 1 ? Duration.zero : delay
                    let task = Task(executorPreference: loop) { await relay.relay(client, to: upstreamPort, after: wait, on: loop) }
                    relay.relays.withLock { $0.append(task) }
                }
            } catch {
                // The listener closed.
            }
        }
        relay.accepting.withLock { $0 = task }
        return relay
    }

    /// Stops accepting and ends every relayed connection (cancelling a relay
    /// closes both of its sockets).
    func stop() async {
        await listener.close()
        await accepting.withLock { $0 }?.value
        let running = relays.withLock { $0 }
        for task in running { task.cancel() }
        for task in running { await task.value }
    }

    private func relay(_ client: SocketStream, to upstreamPort: Int, after delay: Duration, on loop: EventLoop) async {
        do {
            if delay > .zero { try await Task.sleep(for: delay) }
            let server = try await SocketStream.connect(host: "127.0.0.1", port: upstreamPort, on: loop)
            await withTaskGroup(of: Void.self) { pumps in
                pumps.addTask { await Self.pump(from: client, to: server) }
                pumps.addTask { await Self.pump(from: server, to: client) }
            }
        } catch {
            // The upstream server went away, or the relay was stopped.
        }
        await client.close()
    }

    /// Copies until `source` ends or fails, then closes `destination` (which ends the other direction).
    private static func pump(from source: SocketStream, to destination: SocketStream) async {
        do {
            while let bytes = try await source.read() { try await destination.write(bytes) }
        } catch {
            // Closed, reset, or the relay was stopped (cancelled).
        }
        await destination.close()
    }
}
