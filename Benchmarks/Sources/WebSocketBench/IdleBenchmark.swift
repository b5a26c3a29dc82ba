import FiberRuntime
import FiberWebSocket
import Foundation
import HTTPBenchKit

/// Opens `count` idle connections at once (in waves, so as not to overflow
/// the listen backlog), then reports resident memory per connection and the
/// time it took. By default no keep-alive pings and no compression: the idle
/// floor. With `hold`, the connections then stay open that long, pinging every
/// `pingInterval` (the server answers every ping), and resident memory is
/// measured again at the end; with `deflate`, every connection offers
/// permessage-deflate (the server must accept it: `serve --deflate`).
struct IdleBenchmark: Sendable {
    let url: String
    let count: Int
    var hold: Duration = .zero
    var pingInterval: Duration?
    var deflate = false

    func run() async throws {
        raiseOpenFileLimit()
        var settings = WebSocketConfiguration()
        settings.pingInterval = pingInterval
        if deflate { settings.compression = PerMessageDeflate() }
        let configuration = settings
        let url = self.url
        // Warm the runtime (loops, resolver, allocator) so the baseline includes it.
        let warm = try await WebSocketClient.open(url, configuration: configuration)
        warm.close()
        for await _ in warm.events {}
        let before = residentBytes()
        let heapBefore = heapBytesInUse()
        AllocationCounter.start()
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
        let compressed = open.count(where: { $0.compression != nil })
        var line = String(format: "idle connections=%d failed=%d open_seconds=%.3f rss_before_mib=%.1f rss_after_mib=%.1f rss_per_connection_bytes=%d",
                          open.count, failures, secondsOf(elapsed), Double(before) / 1048576, Double(after) / 1048576, perConnection)
        line += " compressed=\(compressed) heap_per_connection_bytes=\(open.isEmpty ? 0 : (heapBytesInUse() - heapBefore) / open.count)"
        if hold > .zero {
            try await Task.sleep(for: hold)
            let held = residentBytes()
            let stillOpen = open.count(where: { $0.state == .connected })
            let heldHeap = heapBytesInUse()
            line += String(format: " hold_seconds=%.0f ping_seconds=%.0f still_open=%d rss_held_mib=%.1f rss_held_per_connection_bytes=%d heap_held_per_connection_bytes=%d",
                           secondsOf(hold), pingInterval.map(secondsOf) ?? 0, stillOpen, Double(held) / 1048576,
                           open.isEmpty ? 0 : (held - before) / open.count, open.isEmpty ? 0 : (heldHeap - heapBefore) / open.count)
        }
        // Closed and released, the connections should give back what they allocated:
        // allocations not freed (counted since before the first one opened) would be a
        // leak. The heap may stay a little larger (collections keep their capacity).
        let opened = open.count
        for connection in open { connection.close() }
        for connection in open { for await _ in connection.events {} }
        open = []
        // Past the close timeout (5 s), so that every cancelled close timer has left the loop.
        try await Task.sleep(for: .seconds(6))
        let counts = AllocationCounter.stop()
        line += " heap_left_after_close_per_connection_bytes=\(opened == 0 ? 0 : (heapBytesInUse() - heapBefore) / opened)"
        line += String(format: " allocations_left_after_close_per_connection=%.2f",
                       opened == 0 ? 0 : (Double(counts.allocations) - Double(counts.frees)) / Double(opened))
        print(line)
    }
}
