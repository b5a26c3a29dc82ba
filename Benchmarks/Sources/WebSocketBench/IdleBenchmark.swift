import FiberRuntime
import FiberWebSocket
import Foundation

/// Opens `count` idle connections at once (in waves, so as not to overflow
/// the listen backlog), then reports resident memory per connection and the
/// time it took. No keep-alive pings, no compression: the idle floor.
struct IdleBenchmark: Sendable {
    let url: String
    let count: Int

    func run() async throws {
        raiseOpenFileLimit()
        var settings = WebSocketConfiguration()
        settings.pingInterval = nil
        let configuration = settings
        let url = self.url
        // Warm the runtime (loops, resolver, allocator) so the baseline includes it.
        let warm = try await WebSocketClient.open(url, configuration: configuration)
        warm.close()
        for await _ in warm.events {}
        let before = residentBytes()
        let clock = ContinuousClock()
        let start = clock.now
        var open: [WebSocketConnection] = []
        open.reserveCapacity(count)
        let wave = 500
        var failures = 0
        while open.count + failures < count {
            let n = min(wave, count - open.count - failures)
            try await withThrowingTaskGroup(of: WebSocketConnection?.self) { group in
                for _ in 0..<n {
                    group.addTask { try? await WebSocketClient.open(url, configuration: configuration) }
                }
                for try await connection in group {
                    if let connection { open.append(connection) } else { failures += 1 }
                }
            }
            if clock.now - start > .seconds(120) { break }
        }
        let elapsed = clock.now - start
        let after = residentBytes()
        let perConnection = open.isEmpty ? 0 : (after - before) / open.count
        print(String(format: "idle connections=%d failed=%d open_seconds=%.3f rss_before_mib=%.1f rss_after_mib=%.1f rss_per_connection_bytes=%d",
                     open.count, failures, secondsOf(elapsed), Double(before) / 1048576, Double(after) / 1048576, perConnection))
        for connection in open { connection.close() }
        for connection in open { for await _ in connection.events {} }
    }
}
