import FiberRuntime

/// Benchmark 3 (and the echo part of 4): loopback echo round trips.
///
/// The server is a `SocketListener` on its own one-loop group; every accepted
/// connection is served by a task running a method of an actor pinned to that
/// loop (read a chunk, write it back). The clients live on a second one-loop
/// group: each connection is driven by an actor pinned to the client loop that
/// writes 64 bytes and reads until 64 bytes came back, timing every round trip.
///
/// Two kinds of task drive those actors:
/// - `.actorOnly`: plain tasks (`Task {}`, `group.addTask {}`). A read that has
///   to wait parks a `CheckedContinuation`; Swift resumes every continuation on
///   the *generic* executor (`swift_continuation_init` sets `ResumeToExecutor`
///   to generic), so each resumed read goes loop → global pool → loop.
/// - `.loopPreference`: the same tasks created with `executorPreference:` set
///   to their loop, so the generic executor *is* the loop and a resumed read
///   stays on the loop thread.
enum EchoBenchmark {
    static let messageSize = 64

    enum TaskMode: String, CaseIterable, Sendable {
        case actorOnly = "plain tasks"
        case loopPreference = "tasks preferring their loop"
    }

    struct Sample {
        let mode: TaskMode
        let connections: Int
        let roundTrips: Int
        let elapsed: Duration
        /// Sorted round-trip latencies in nanoseconds (empty when not recorded).
        let latencies: [Int]
        let allocations: AllocationCounts?

        var roundTripsPerSecond: Double { Double(roundTrips) / elapsed.seconds }
        func latencyMicroseconds(_ p: Double) -> Double { Double(percentile(latencies, p)) / 1000 }
    }

    /// The echo server, pinned to the server loop.
    actor Server {
        nonisolated let listener: SocketListener
        nonisolated let mode: TaskMode
        private var sessions: [SocketStream] = []
        private var acceptor: Task<Void, Never>?
        nonisolated var unownedExecutor: UnownedSerialExecutor { listener.loop.executor }

        init(listener: SocketListener, mode: TaskMode) {
            self.listener = listener
            self.mode = mode
        }

        static func start(on loop: EventLoop, mode: TaskMode) async throws -> Server {
            let listener = try await SocketListener.listen(host: "127.0.0.1", port: 0, on: loop)
            let server = Server(listener: listener, mode: mode)
            await server.startAccepting()
            return server
        }

        private func startAccepting() {
            acceptor = Task {
                do {
                    for try await connection in listener.connections {
                        sessions.append(connection)
                        switch mode {
                        case .actorOnly: Task { await self.serve(connection) }
                        case .loopPreference: Task(executorPreference: listener.loop) { await self.serve(connection) }
                        }
                    }
                } catch {
                    print("warning: echo server stopped accepting: \(error)")
                }
            }
        }

        private func serve(_ connection: SocketStream) async {
            do {
                while let chunk = try await connection.read() {
                    try await connection.write(chunk)
                }
            } catch let error as TransportError where error.kind == .closed || error.kind == .eventLoopShutdown {
                // Closed by `stop()`.
            } catch {
                print("warning: echo session failed: \(error)")
            }
            await connection.close()
        }

        func stop() async {
            await listener.close()
            for session in sessions { await session.close() }
            sessions.removeAll()
            acceptor?.cancel()
        }
    }

    /// One client connection, pinned to the client loop.
    actor Client {
        nonisolated let stream: SocketStream
        nonisolated var unownedExecutor: UnownedSerialExecutor { stream.loop.executor }
        private let message = [UInt8](repeating: UInt8(ascii: "f"), count: EchoBenchmark.messageSize)

        init(stream: SocketStream) { self.stream = stream }

        static func connect(to address: SocketAddress, on loop: EventLoop) async throws -> Client {
            Client(stream: try await SocketStream.connect(to: [address], on: loop))
        }

        /// Runs round trips until `rounds` are done or `deadline` passed; returns
        /// how many, and their latencies in nanoseconds when `record` is set.
        func run(rounds: Int, until deadline: ContinuousClock.Instant, record: Bool) async throws -> (Int, [Int]) {
            var latencies: [Int] = []
            if record { latencies.reserveCapacity(rounds) }
            var done = 0
            while done < rounds {
                let sent = clock.now
                try await stream.write(message)
                var received = 0
                while received < message.count {
                    guard let chunk = try await stream.read() else {
                        throw BenchmarkError("the echo server closed the connection")
                    }
                    received += chunk.count
                }
                let now = clock.now
                if record { latencies.append((now - sent).wholeNanoseconds) }
                done += 1
                if now >= deadline { break }
            }
            return (done, latencies)
        }

        func close() async { await stream.close() }
    }

    /// Runs `connections` clients at once against `server` for at most `limit`
    /// or `totalRounds` round trips in all.
    static func run(
        server: Server, clientLoop: EventLoop, connections: Int, totalRounds: Int, limit: Duration,
        warmUp: Duration, record: Bool, countAllocations: Bool
    ) async throws -> Sample {
        var clients: [Client] = []
        for _ in 0..<connections {
            clients.append(try await Client.connect(to: server.listener.localAddress, on: clientLoop))
        }
        let perClient = max(1, totalRounds / connections)

        // Warm-up: the same connections, not timed.
        if warmUp > .zero {
            _ = try await runAll(clients, mode: server.mode, rounds: perClient, until: clock.now + warmUp, record: false)
        }

        if countAllocations { AllocationCounter.start() }
        let start = clock.now
        let results = try await runAll(clients, mode: server.mode, rounds: perClient, until: start + limit, record: record)
        let elapsed = clock.now - start
        let allocations = countAllocations ? AllocationCounter.stop() : nil

        for client in clients { await client.close() }
        let latencies = record ? results.flatMap(\.1).sorted() : []
        return Sample(mode: server.mode, connections: connections, roundTrips: results.reduce(0) { $0 + $1.0 }, elapsed: elapsed,
                      latencies: latencies, allocations: allocations)
    }

    private static func runAll(
        _ clients: [Client], mode: TaskMode, rounds: Int, until deadline: ContinuousClock.Instant, record: Bool
    ) async throws -> [(Int, [Int])] {
        try await withThrowingTaskGroup(of: (Int, [Int]).self) { group in
            for client in clients {
                let preference: (any TaskExecutor)? = mode == .loopPreference ? client.stream.loop : nil
                group.addTask(executorPreference: preference) {
                    try await client.run(rounds: rounds, until: deadline, record: record)
                }
            }
            var all: [(Int, [Int])] = []
            for try await result in group { all.append(result) }
            return all
        }
    }
}
