import FiberRuntime
import Metrics

/// Reports the connection pools of an `HTTPTransport` to swift-metrics as
/// gauges, one series per origin, with dimensions `server.address`,
/// `server.port` and `url.scheme`:
///
/// - `http.client.open_connections` (OpenTelemetry's name), by
///   `http.connection.state`: `active` (serving a request) and `idle`;
/// - `fiber.http.client.pool.open`, `.idle`, `.leased`, `.connecting` and
///   `.waiting` (requests waiting for a connection).
///
/// ```swift
/// let gauges = ConnectionPoolGauges()          // HTTPTransport.shared, MetricsSystem
/// Task { await gauges.run(every: .seconds(10)) }
/// ```
///
/// An origin whose connections all closed since the last report is reported
/// once more, at zero, so that a backend does not keep showing its last counts.
public final class ConnectionPoolGauges: Sendable {
    private let client: HTTPClient
    private let factory: (any MetricsFactory)?
    /// The origins of the last report.
    private let reported = Locked<Set<ConnectionPoolOriginStatistics.Origin>>([])

    /// Gauges of `transport`'s pools, reported to `factory` (nil: the bootstrapped `MetricsSystem`).
    public init(transport: HTTPTransport = .shared, factory: (any MetricsFactory)? = nil) {
        self.client = transport.client
        self.factory = factory
    }

    /// Gauges of `fiber`'s pools: its own transport's when its configuration sets `http`,
    /// else `HTTPTransport.shared`'s; nil when its transport is not the built-in HTTP one.
    public convenience init?(fiber: Fiber, factory: (any MetricsFactory)? = nil) {
        guard let transport = fiber.transport as? HTTPTransport else { return nil }
        self.init(transport: transport, factory: factory)
    }

    /// Reads the pools' counts now and sets the gauges.
    public func report() async {
        let origins = await client.statisticsByOrigin()
        let factory = self.factory ?? MetricsSystem.factory
        var now: Set<ConnectionPoolOriginStatistics.Origin> = []
        for origin in origins {
            now.insert(origin.origin)
            Self.set(origin.origin, origin.statistics, on: factory)
        }
        let gone = reported.withLock { reported in
            defer { reported = now }
            return reported.subtracting(now)
        }
        for origin in gone { Self.set(origin, ConnectionPoolStatistics(), on: factory) }
    }

    /// Reports every `interval` until the task is cancelled.
    public func run(every interval: Duration = .seconds(10)) async {
        while !Task.isCancelled {
            await report()
            try? await Task.sleep(for: interval)
        }
    }

    private static func set(_ origin: ConnectionPoolOriginStatistics.Origin, _ s: ConnectionPoolStatistics,
                            on factory: any MetricsFactory) {
        let location = [("server.address", origin.host), ("server.port", String(origin.port)), ("url.scheme", origin.scheme)]
        func gauge(_ label: String, _ value: Int, _ extra: [(String, String)] = []) {
            factory.makeRecorder(label: label, dimensions: extra + location, aggregate: false).record(Int64(value))
        }
        gauge("http.client.open_connections", s.leased, [("http.connection.state", "active")])
        gauge("http.client.open_connections", s.idle, [("http.connection.state", "idle")])
        gauge("fiber.http.client.pool.open", s.open)
        gauge("fiber.http.client.pool.idle", s.idle)
        gauge("fiber.http.client.pool.leased", s.leased)
        gauge("fiber.http.client.pool.connecting", s.connecting)
        gauge("fiber.http.client.pool.waiting", s.waiting)
    }
}
