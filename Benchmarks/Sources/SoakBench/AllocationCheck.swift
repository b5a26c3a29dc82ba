import Fiber
import FiberRuntime
import FiberWebSocket
import HTTPBenchKit

/// The allocation regression check of `Scripts/check-allocations`: allocations per
/// operation, counted over the whole process by the malloc interposer of
/// `CBenchSupport`, for each path users take, one operation after the other on
/// one loop (tasks preferring it, as `Scripts/bench-http` runs them):
///
/// - `fiber-get`: `Fiber.get` over the runtime client, the body collected;
/// - `client-execute`: `HTTPClient.execute`, the body collected;
/// - `client-stream`: `HTTPClient.stream`, the body read chunk by chunk;
/// - `websocket-echo`: one 16-byte text message sent and its echo received.
///
/// Prints one `ALLOC_RESULT {json}` line per path: allocations, bytes and
/// allocations not freed (`net`) per operation. The script compares them with the
/// committed baseline; nothing here is timed.
struct AllocationCheck: Sendable {
    var httpURL = ""
    var webSocketURL: String?
    var operations = 2_000
    var warmup = 200

    func run() async {
        HTTPBench.startWatchdog(seconds: 300, what: "the allocation check")
        guard AllocationCounter.works else { HTTPBench.die("the malloc interposer does not see the Swift runtime's allocations") }
        let group = EventLoopGroup(loopCount: 1)
        let loop = group.loops[0]
        let client = HTTPClient(eventLoopGroup: group)
        let transport = HTTPTransport(eventLoopGroup: group)
        let (origin, path) = splitOrigin(httpURL)
        let fiber = Fiber(origin) { $0.transport = transport }
        let url = httpURL

        await measure("fiber-get", on: loop) {
            let response = try await fiber.get(path)
            guard response.statusCode == 200, !response.data.isEmpty else { throw SoakError("status \(response.statusCode)") }
        }
        await measure("client-execute", on: loop) {
            let response = try await client.execute(HTTPClientRequest(url: url))
            guard response.status == 200, !response.body.isEmpty else { throw SoakError("status \(response.status)") }
        }
        await measure("client-stream", on: loop) {
            let response = try await client.stream(HTTPClientRequest(url: url))
            guard response.status == 200 else { throw SoakError("status \(response.status)") }
            var bytes = 0
            for try await chunk in response.body { bytes += chunk.count }
            guard bytes > 0 else { throw SoakError("an empty body") }
        }
        if let webSocketURL {
            await measureWebSocket(webSocketURL, on: loop)
        }
        await client.shutdown()
        await transport.shutdown()
        try? await group.shutdown()
    }

    /// One message and its echo per operation, on one connection.
    private func measureWebSocket(_ url: String, on loop: EventLoop) async {
        var configuration = WebSocketConfiguration()
        configuration.pingInterval = nil
        let connection: WebSocketConnection
        do {
            connection = try await WebSocketClient.open(url, configuration: configuration, on: loop)
        } catch {
            HTTPBench.die("websocket-echo: cannot connect to \(url): \(error)")
        }
        let events = IteratorBox(connection.events.makeAsyncIterator())
        await measure("websocket-echo", on: loop) {
            try await connection.send(.text("sixteen bytes..."))
            while true {
                switch await events.next() {
                case .message: return
                case .connected: continue
                case .disconnected, .error, nil: throw SoakError("the connection ended")
                }
            }
        }
        connection.close()
        while await events.next() != nil {}
    }

    /// Runs `operation` `warmup` times uncounted, then `operations` times counted,
    /// in a task preferring `loop`; prints the result line, or dies on a failure.
    private func measure(_ name: String, on loop: EventLoop, _ operation: @escaping @Sendable () async throws -> Void) async {
        let operations = self.operations
        let warmup = self.warmup
        let counted = await Task(executorPreference: loop) { () async -> Result<AllocationCounter.Counts, any Error> in
            do {
                for _ in 0..<warmup { try await operation() }
                AllocationCounter.start()
                for _ in 0..<operations { try await operation() }
                return .success(AllocationCounter.stop())
            } catch {
                AllocationCounter.stop()
                return .failure(error)
            }
        }.value
        switch counted {
        case .failure(let error):
            HTTPBench.die("\(name): \(error)")
        case .success(let counts):
            let n = Double(operations)
            let net = (Double(counts.allocations) - Double(counts.frees)) / n
            print("ALLOC_RESULT {\"name\":\"\(name)\",\"operations\":\(operations),"
                + "\"allocations\":\(rounded(Double(counts.allocations) / n)),"
                + "\"bytes\":\(rounded(Double(counts.bytes) / n)),\"net\":\(rounded(net))}")
        }
    }
}

/// The event iterator of the measured connection, used by one task at a time
/// (the operations run one after the other), so the unchecked Sendable is safe.
private final class IteratorBox: @unchecked Sendable {
    private var iterator: WebSocketEvents.AsyncIterator
    init(_ iterator: WebSocketEvents.AsyncIterator) { self.iterator = iterator }
    func next() async -> WebSocketEvent? { await iterator.next() }
}
