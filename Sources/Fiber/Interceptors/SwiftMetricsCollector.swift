import FiberRuntime
import Metrics

/// Reports request metrics to swift-metrics, so whatever backend the service
/// bootstrapped (Prometheus, StatsD, …) receives them:
///
/// - `<label>.requests` (counter) and `<label>.duration` (timer, nanoseconds),
///   with dimensions `method` and `status`;
/// - `<label>.failures` (counter) for requests that failed or were answered
///   4xx or 5xx, by `method` (a 304 of a revalidation is not a failure);
/// - `<label>.request_size` and `<label>.response_size` (recorders, bytes);
/// - `http.client.request.duration` (an aggregating recorder, a histogram, in
///   seconds), OpenTelemetry's HTTP client metric, with its dimensions
///   `http.request.method`, `http.response.status_code` (absent without a
///   response), `server.address`, `server.port`, `url.scheme` and `error.type`
///   (the status for 4xx and 5xx, the error's type name for a failure, absent otherwise).
///
/// The metrics are made once per method and status and reused, as swift-metrics
/// recommends, so reporting a request allocates nothing.
public struct SwiftMetricsCollector: MetricsCollector {
    /// What reports; `MetricsInterceptor` calls it in place, without suspending and
    /// without building a `RequestMetrics` whose URL, trace ID and timestamp it would not read.
    let reporter: SwiftMetricsReporter

    /// Reports under `label` to `factory` (nil: the bootstrapped `MetricsSystem`).
    public init(label: String = "fiber.http", factory: (any MetricsFactory)? = nil) {
        self.reporter = SwiftMetricsReporter(label: label, factory: factory)
    }

    /// Reports `metrics` to the factory.
    public func collect(_ metrics: RequestMetrics) async {
        reporter.report(method: metrics.method, statusCode: metrics.statusCode, requestSize: metrics.requestSize,
                        responseSize: metrics.responseSize, durationMs: metrics.durationMs, success: metrics.success)
        let attributes = HTTPClientAttributes(method: metrics.method, urlText: metrics.url)
        reporter.reportDuration(HTTPClientDurationKey(attributes, status: metrics.statusCode, errorType: metrics.errorType),
                                seconds: metrics.durationMs / 1000)
    }
}

/// A `SwiftMetricsCollector`'s state and work. An object, so that the interceptor
/// reaches it through one reference, retained once, rather than a copy of the
/// collector's fields for every report.
final class SwiftMetricsReporter: Sendable {
    private let factory: (any MetricsFactory)?
    private let handles: MetricHandles

    init(label: String, factory: (any MetricsFactory)?) {
        self.factory = factory
        self.handles = MetricHandles(label: label)
    }

    func report(method: String, statusCode: Int, requestSize: Int, responseSize: Int, durationMs: Double, success: Bool) {
        // Read on every report: `MetricsSystem.factory` may be bootstrapped
        // after the collector is made, or bound to a task (`withMetricsFactory`).
        let factory = self.factory ?? MetricsSystem.factory
        let set = handles.metrics(method: method, status: statusCode, factory: factory)
        set.requests.increment(by: 1)
        set.duration.recordNanoseconds(Int64(durationMs * 1_000_000))
        if !success { handles.failures(method: method, factory: factory).increment(by: 1) }
        set.requestSize.record(Int64(requestSize))
        set.responseSize.record(Int64(responseSize))
    }

    /// Records one request in OpenTelemetry's `http.client.request.duration`.
    func reportDuration(_ key: HTTPClientDurationKey, seconds: Double) {
        let factory = self.factory ?? MetricsSystem.factory
        handles.duration(key, factory: factory).record(seconds)
    }
}

/// The metrics of one method and status (failures have their own, made only
/// once there is a failure to count, so that a backend shows none before).
///
/// The factory's handlers, made as `Counter`, `Timer` and `Recorder` make
/// theirs and fed the `Int64` values those would pass them: those wrappers'
/// generic integer conversions are not specialized across modules, and cost
/// more than the handlers' work. An object: it is found for every report, and
/// finding it then retains one reference rather than four handlers.
final class RequestMetricSet: Sendable {
    let requests: any CounterHandler
    let duration: any TimerHandler
    let requestSize: any RecorderHandler
    let responseSize: any RecorderHandler

    init(label: String, method: String, status: Int, factory: any MetricsFactory) {
        let dimensions = [("method", method), ("status", String(status))]
        requests = factory.makeCounter(label: "\(label).requests", dimensions: dimensions)
        duration = factory.makeTimer(label: "\(label).duration", dimensions: dimensions)
        requestSize = factory.makeRecorder(label: "\(label).request_size", dimensions: [], aggregate: true)
        responseSize = factory.makeRecorder(label: "\(label).response_size", dimensions: [], aggregate: true)
    }
}

/// The metrics made so far for the current factory: sets by method and
/// status, failure counters by method.
///
/// Only a factory that is an object is cached, and it is held while cached, so
/// that no other factory can take its identity; a different factory (a
/// task-local one, a late bootstrap) starts the cache afresh. Past `limit`
/// entries (a server inventing statuses, custom methods) objects are made per
/// report, as without a cache.
final class MetricHandles: Sendable {
    private struct Key: Hashable {
        // The status first: `==` compares in this order, and an integer is cheaper to tell apart.
        let status: Int
        let method: String
    }

    private struct State {
        var identity: ObjectIdentifier?
        var factory: (any MetricsFactory)?
        var sets: [Key: RequestMetricSet] = [:]
        var failures: [String: any CounterHandler] = [:]
        var durations: [HTTPClientDurationKey: any RecorderHandler] = [:]
        /// The set found last: most requests have the method and status of the one before,
        /// and comparing a key costs less than hashing it.
        var lastSet: (key: Key, set: RequestMetricSet)?

        var count: Int { sets.count + failures.count + durations.count }
    }

    static let limit = 256
    private let label: String
    private let state = Locked(State())

    init(label: String) { self.label = label }

    func metrics(method: String, status: Int, factory: any MetricsFactory) -> RequestMetricSet {
        let key = Key(status: status, method: method)
        return cached(for: factory, find: { state in
            if let last = state.lastSet, last.key == key { return last.set }
            guard let set = state.sets[key] else { return nil }
            state.lastSet = (key, set)
            return set
        }, store: { $0.sets[key] = $1; $0.lastSet = (key, $1) }) {
            RequestMetricSet(label: label, method: method, status: status, factory: factory)
        }
    }

    func failures(method: String, factory: any MetricsFactory) -> any CounterHandler {
        cached(for: factory, find: { $0.failures[method] }, store: { $0.failures[method] = $1 }) {
            factory.makeCounter(label: "\(label).failures", dimensions: [("method", method)])
        }
    }

    func duration(_ key: HTTPClientDurationKey, factory: any MetricsFactory) -> any RecorderHandler {
        cached(for: factory, find: { $0.durations[key] }, store: { $0.durations[key] = $1 }) {
            factory.makeRecorder(label: HTTPClientDurationKey.label, dimensions: key.dimensions, aggregate: true)
        }
    }

    private func cached<Value>(for factory: any MetricsFactory, find: (inout State) -> Value?, store: (inout State, Value) -> Void,
                               make: () -> Value) -> Value {
        guard let identity = Self.identity(of: factory) else { return make() }
        if let value = state.withLock({ $0.identity == identity ? find(&$0) : nil }) { return value }
        // Made outside the lock: a factory may take locks of its own.
        let value = make()
        state.withLock { state in
            if state.identity != identity { state = State(identity: identity, factory: factory) }
            if state.count < Self.limit { store(&state, value) }
        }
        return value
    }

    /// The number of cached entries (for tests).
    var count: Int { state.withLock { $0.count } }

    /// The identity of a factory that is a class instance; nil for any other.
    private static func identity(of factory: any MetricsFactory) -> ObjectIdentifier? {
        func identity<Factory: MetricsFactory>(_ factory: Factory) -> ObjectIdentifier? {
            // A class instance is one reference, readable as `AnyObject` as it is:
            // `factory as AnyObject` would take the runtime's bridging path, which
            // costs more than the metrics it saves making.
            guard Factory.self is AnyObject.Type else { return nil }
            return ObjectIdentifier(unsafeBitCast(factory, to: AnyObject.self))
        }
        return identity(factory)
    }
}
