/// The connection counts of one origin (scheme, host, port), over every loop of a client.
public struct ConnectionPoolOriginStatistics: Sendable, Hashable {
    /// `http` or `https`.
    public var scheme: String
    /// The host name or IP literal.
    public var host: String
    /// The port.
    public var port: Int
    /// Its connections and waiting requests.
    public var statistics: ConnectionPoolStatistics

    /// Counts as given.
    public init(scheme: String, host: String, port: Int, statistics: ConnectionPoolStatistics) {
        self.scheme = scheme
        self.host = host
        self.port = port
        self.statistics = statistics
    }

    /// Scheme, host and port: what counts are summed and reported under.
    package struct Origin: Hashable, Sendable {
        package let scheme: String
        package let host: String
        package let port: Int
    }

    package var origin: Origin { Origin(scheme: scheme, host: host, port: port) }
}

extension HTTPClient {
    /// Connection counts for each origin with connections open or opening, or
    /// requests waiting, sorted by scheme, host and port. Pools of one origin
    /// with different TLS configurations are added together.
    public func statisticsByOrigin() async -> [ConnectionPoolOriginStatistics] {
        var sums: [ConnectionPoolOriginStatistics.Origin: ConnectionPoolStatistics] = [:]
        for pool in pools.values {
            for (key, s) in await pool.statisticsByOrigin() {
                let origin = ConnectionPoolOriginStatistics.Origin(scheme: key.scheme, host: key.host, port: key.port)
                sums[origin, default: ConnectionPoolStatistics()].add(s)
            }
        }
        return sums.map { ConnectionPoolOriginStatistics(scheme: $0.key.scheme, host: $0.key.host, port: $0.key.port,
                                                          statistics: $0.value) }
            .sorted { ($0.scheme, $0.host, $0.port) < ($1.scheme, $1.host, $1.port) }
    }
}

extension ConnectionPoolStatistics {
    /// Adds one pool's counts.
    mutating func add(_ s: ConnectionPoolStateMachine.Statistics) {
        open += s.open; idle += s.idle; leased += s.leased
        connecting += s.connecting; waiting += s.waiting
    }
}
