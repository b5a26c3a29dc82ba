import FiberRuntime
import FiberWebSocket
import Foundation
import HTTPBenchKit

/// `connections` connections, each sending a `size`-byte binary message and
/// waiting for its echo, in a loop, for `seconds`: messages per second.
struct EchoBenchmark: Sendable {
    let url: String
    let size: Int
    let connections: Int
    let seconds: Double

    func run() async throws {
        raiseOpenFileLimit()
        var settings = WebSocketConfiguration()
        settings.pingInterval = nil
        settings.maxOutgoingFrameSize = max(size, 1)
        let configuration = settings
        let url = self.url
        let payload = [UInt8](repeating: 0x61, count: size)
        let sockets = try await withThrowingTaskGroup(of: WebSocketConnection.self) { group in
            for _ in 0..<connections { group.addTask { try await WebSocketClient.open(url, configuration: configuration) } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        let clock = ContinuousClock()
        let deadline = clock.now + .milliseconds(Int(seconds * 1000))
        let start = clock.now
        let total = try await withThrowingTaskGroup(of: Int.self) { group in
            for ws in sockets {
                group.addTask {
                    var iterator = ws.events.makeAsyncIterator()
                    _ = await iterator.next()   // .connected
                    var count = 0
                    while clock.now < deadline {
                        try await ws.send(.binary(payload))
                        guard case .message(let m)? = await iterator.next(), m.byteCount == size else { break }
                        count += 1
                    }
                    return count
                }
            }
            return try await group.reduce(0, +)
        }
        let elapsed = secondsOf(clock.now - start)
        print(String(format: "echo size=%d connections=%d messages=%d seconds=%.2f msgs_per_second=%.0f",
                     size, connections, total, elapsed, Double(total) / elapsed))
        for ws in sockets { ws.close() }
        for ws in sockets { for await _ in ws.events {} }
    }
}
