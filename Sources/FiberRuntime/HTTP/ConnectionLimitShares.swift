/// How a client's per-host connection limit is spread over its event loops.
///
/// Each loop keeps its own pool (a request and its connection share one
/// thread), so a client-wide limit is kept by giving each loop a share: the
/// limit divided evenly, the remainder to the first loops. A limit below the
/// number of loops leaves the last loops without a share; the client then
/// sends only on the loops that have one. The shares always add up to the
/// limit, so `maxConnectionsPerHost` bounds the client as a whole.
struct ConnectionLimitShares: Equatable, Sendable {
    /// Connections per origin for each loop, in the group's order; 0 for a loop that sends nothing.
    let connections: [Int]
    /// Idle connections kept per origin for each loop.
    let idle: [Int]

    init(maxConnections: Int, maxIdle: Int, loopCount: Int) {
        connections = Self.split(maxConnections, over: loopCount)
        // Idle connections follow the connection shares: a loop keeps at most what it may open.
        let idleShares = Self.split(maxIdle, over: loopCount)
        idle = zip(connections, idleShares).map { min($0, $1) }
    }

    /// `total` in `parts` parts that differ by at most one, the larger first.
    static func split(_ total: Int, over parts: Int) -> [Int] {
        guard parts > 0 else { return [] }
        let base = max(total, 0) / parts, extra = max(total, 0) % parts
        return (0..<parts).map { base + ($0 < extra ? 1 : 0) }
    }
}
