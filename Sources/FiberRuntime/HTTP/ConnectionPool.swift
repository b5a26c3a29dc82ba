import Logging

/// The connection pools of one event loop, one state machine per origin
/// (scheme, host, port, TLS configuration): an actor pinned to the loop,
/// whose only job is to perform what `ConnectionPoolStateMachine` decides.
actor ConnectionPool: LoopIsolated {
    struct Key: Hashable, Sendable {
        let scheme: String
        let host: String
        let port: Int
        /// The TLS configuration for https (nil for http): connections made with
        /// different trust, pins or identities never mix. Its ALPN list says
        /// which HTTP versions a TLS connection may speak.
        let tls: TLSConfiguration?
        /// A cleartext connection speaks HTTP/2 with prior knowledge (h2c);
        /// over TLS, HTTP/2 is required (ALPN `h2` alone).
        var requiresHTTP2 = false
        /// The Unix domain socket the origin is reached through, or nil for the network.
        var socketPath: String? = nil
        /// The proxy its connections go through (nil: direct): connections through
        /// different proxies, or none, never mix.
        var proxy: ProxyServer? = nil

        /// Leaves the TLS configuration to `==`: hashing it (trust roots, pins,
        /// identity) on every lease would cost more than the lease, and a
        /// client's requests mostly share one configuration, which `==` finds
        /// equal at once (same storage).
        func hash(into hasher: inout Hasher) {
            hasher.combine(scheme)
            hasher.combine(host)
            hasher.combine(port)
            hasher.combine(tls == nil)
            hasher.combine(requiresHTTP2)
            hasher.combine(socketPath)
            hasher.combine(proxy?.port)
        }
    }

    /// A pooled connection of either HTTP version.
    enum Connection: Sendable {
        case http1(HTTP1Connection)
        case http2(HTTP2Connection)

        func close(_ reason: HTTPClientError) {
            switch self {
            case .http1(let connection): connection.assumeIsolated { $0.close(reason) }
            case .http2(let connection): connection.assumeIsolated { $0.close(reason) }
            }
        }

        var setupTiming: RequestTiming {
            switch self {
            case .http1(let connection): connection.setupTiming
            case .http2(let connection): connection.setupTiming
            }
        }
    }

    struct Leased: Sendable {
        let connection: Connection
        /// Set on a connection made for this lease: its connect timings.
        let setup: RequestTiming?
        /// How long the lease waited for a connection (nil: an idle one was there).
        var waited: Duration? = nil
    }

    nonisolated let loop: EventLoop
    nonisolated var unownedExecutor: UnownedSerialExecutor { loop.executor }
    private let limits: ConnectionPoolStateMachine.Limits
    private let socketOptions: SocketOptions
    private let maxHeaderBytes: Int
    private let http2: HTTP2Configuration
    private let resolver: Resolver
    /// Receives connection-level events (`ConnectionPool+Logging`); nil: none are built.
    let logger: Logger?

    /// One origin's state machine and the connections it names, reached by
    /// reference: the hot path hashes the key once per lease, never per event.
    // @unchecked: touched only by its pool, isolated to the pool's loop (closures carry it back there).
    fileprivate final class Origin: @unchecked Sendable {
        let key: Key
        var machine: ConnectionPoolStateMachine
        var connections: [Int: Connection] = [:]
        var leased: Set<Int> = []
        /// Made for a waiter and not yet leased: the first lease carries the connect timings.
        var fresh: Set<Int> = []
        /// The last connect failure, for the waiter it fails.
        var connectError: (any Error)?

        init(key: Key, machine: ConnectionPoolStateMachine) {
            self.key = key
            self.machine = machine
        }

        /// Marks `id` leased; the first lease of a fresh connection carries its connect timings.
        /// (An HTTP/2 connection reports each stream's end itself: only HTTP/1.1 ones are tracked here.)
        func lease(_ id: Int, _ connection: Connection) -> Leased {
            if case .http1 = connection { leased.insert(id) }
            return Leased(connection: connection, setup: fresh.remove(id) != nil ? connection.setupTiming : nil)
        }
    }

    private var origins: [Key: Origin] = [:]
    private var waiters: [Int: (origin: Origin, result: OnceContinuation<Leased>, timer: LoopTimer?)] = [:]
    private var nextWaiterID = 0
    private var sweepTimer: LoopTimer?
    private var isShutDown = false

    init(loop: EventLoop, limits: ConnectionPoolStateMachine.Limits, socketOptions: SocketOptions,
         maxHeaderBytes: Int, http2: HTTP2Configuration = HTTP2Configuration(), resolver: Resolver, logger: Logger? = nil) {
        self.http2 = http2
        self.loop = loop
        self.logger = logger
        self.limits = limits
        self.socketOptions = socketOptions
        self.maxHeaderBytes = maxHeaderBytes
        self.resolver = resolver
    }

    /// A connection to `key`'s origin: an idle one at once, or a place in the
    /// queue to await (`LeaseWait.result()`) until one is made or freed.
    /// Synchronous: the HTTP client calls it from the loop without a hop to
    /// this actor, and awaits only when it has to.
    enum LeaseStart {
        case leased(Leased)
        case waiting(LeaseWait)
    }

    func startLease(_ key: Key, deadline: ContinuousClock.Instant?) -> LeaseStart {
        let origin = origin(for: key)
        nextWaiterID += 1
        let waiterID = nextWaiterID
        let now = ContinuousClock.now
        let actions = origin.machine.leaseRequested(waiterID, now: now)
        // The common case, an idle connection: no waiter, no continuation.
        if actions.count == 1, case .lease(let id, to: waiterID) = actions[0], let connection = origin.connections[id] {
            return .leased(origin.lease(id, connection))
        }
        let result = OnceContinuation<Leased>()
        waiters[waiterID] = (origin, result, nil)
        perform(actions, in: origin)
        if waiters[waiterID] != nil, logger != nil { logWaiting(origin.key, origin.machine.statistics, opening: actions) }
        if waiters[waiterID] != nil, let deadline {
            let timer = try? LoopTimer(on: loop)
            waiters[waiterID]?.timer = timer
            timer?.start(after: deadline - .now) { [weak self] in
                self?.assumeIsolated { me in me.perform(in: origin) { $0.waiterLeft(waiterID, because: .timedOut) } }
            }
        }
        return .waiting(LeaseWait(pool: self, origin: origin, waiterID: waiterID, since: now, leased: result))
    }

    /// A request waiting for a connection.
    struct LeaseWait: Sendable {
        fileprivate let pool: ConnectionPool
        fileprivate let origin: Origin
        fileprivate let waiterID: Int
        fileprivate let since: ContinuousClock.Instant
        fileprivate let leased: OnceContinuation<Leased>

        /// Waits for the connection; cancelling the task gives up the place.
        ///
        /// - Throws: as `lease`.
        func result(isolation: isolated (any Actor)? = #isolation) async throws -> Leased {
            let (pool, origin, waiterID) = (pool, origin, waiterID)
            var leased = try await withTaskCancellationHandler {
                try await self.leased.wait()
            } onCancel: {
                try? pool.loop.execute {
                    pool.assumeIsolated { me in me.perform(in: origin) { $0.waiterLeft(waiterID, because: .cancelled) } }
                }
            }
            leased.waited = .now - since
            return leased
        }
    }

    /// Counts of connections and waiters over every origin.
    func statistics() -> ConnectionPoolStateMachine.Statistics {
        origins.values.reduce(into: ConnectionPoolStateMachine.Statistics()) { sum, origin in
            let s = origin.machine.statistics
            sum.open += s.open; sum.idle += s.idle; sum.leased += s.leased
            sum.connecting += s.connecting; sum.waiting += s.waiting
        }
    }

    /// Counts of connections and waiters for each origin.
    func statisticsByOrigin() -> [(key: Key, statistics: ConnectionPoolStateMachine.Statistics)] {
        origins.values.map { ($0.key, $0.machine.statistics) }
    }

    /// Closes idle connections, fails waiters with `.shutdown`; leased ones close when released.
    func shutdown() {
        isShutDown = true
        for origin in Array(origins.values) { perform(in: origin) { $0.shutdown() } }
        sweepTimer?.close()
        sweepTimer = nil
    }

    // MARK: Performing actions

    /// `key`'s origin, made on first use. One made after shutdown starts shut
    /// down (it has nothing to act on yet).
    private func origin(for key: Key) -> Origin {
        if let origin = origins[key] { return origin }
        var machine = ConnectionPoolStateMachine(limits: limits)
        if isShutDown { _ = machine.shutdown() }
        let origin = Origin(key: key, machine: machine)
        origins[key] = origin
        return origin
    }

    /// Applies `event` to `origin`'s machine (in place: a class's stored
    /// property, never a copy of its tables) and performs its actions.
    private func perform(in origin: Origin, _ event: (inout ConnectionPoolStateMachine) -> [ConnectionPoolStateMachine.Action]) {
        perform(event(&origin.machine), in: origin)
    }

    private func perform(_ actions: [ConnectionPoolStateMachine.Action], in origin: Origin) {
        for action in actions { perform(action, in: origin) }
        if origin.machine.isEmpty, !isShutDown, origins[origin.key] === origin { origins[origin.key] = nil }
        armSweep()
    }

    private func perform(_ action: ConnectionPoolStateMachine.Action, in origin: Origin) {
        switch action {
        case .lease(let id, let waiterID):
            guard let waiter = waiters.removeValue(forKey: waiterID), let connection = origin.connections[id] else { return }
            waiter.timer?.close()
            if !waiter.result.resume(with: .success(origin.lease(id, connection))) {
                // The waiter left in the same instant: give the connection back.
                origin.leased.remove(id)
                perform(in: origin) { $0.connectionReleased(id, reusable: true, now: .now) }
            }
        case .createConnection(let id):
            connect(id, in: origin)
        case .closeConnection(let id):
            origin.leased.remove(id)
            origin.fresh.remove(id)
            if let connection = origin.connections.removeValue(forKey: id) {
                connection.close(HTTPClientError(.connectionClosed, "closed by the pool"))
            }
        case .failWaiter(let waiterID, let failure):
            guard let waiter = waiters.removeValue(forKey: waiterID) else { return }
            waiter.timer?.close()
            let error: any Error = switch failure {
            case .shutdown: HTTPClientError(.shutdown)
            case .timedOut: HTTPClientError(.deadlineExceeded, "while waiting for a connection")
            case .cancelled: HTTPClientError(.cancelled)
            case .connectFailed: origin.connectError.take() ?? HTTPClientError(.transport, "connect failed")
            }
            waiter.result.resume(with: .failure(error))
        }
    }

    private func connect(_ id: Int, in origin: Origin) {
        // Not a child of the waiter's task: the connection outlives the request that asked for it.
        Task(executorPreference: loop) { await self.open(id, in: origin) }
    }

    private func open(_ id: Int, in origin: Origin) async {
        let key = origin.key
        let start = ContinuousClock.now
        var timing = RequestTiming()
        do {
            let stream: SocketStream
            let resolved: ContinuousClock.Instant
            if let path = key.socketPath {  // a Unix domain socket: no name to resolve; TLS still uses the host
                stream = try await SocketStream.connect(unixPath: path, on: loop, options: socketOptions)
                resolved = start
            } else if let proxy = key.proxy {
                // The proxy resolves the origin's name (SOCKS5, CONNECT) or is sent it (forwarding).
                stream = try await ProxyTunnel.connect(through: proxy, scheme: key.scheme, host: key.host, port: key.port,
                                                       on: loop, options: socketOptions, resolver: resolver)
                resolved = start
            } else {
                let addresses = try await resolver.resolve(host: key.host, port: key.port, on: loop)
                resolved = ContinuousClock.now
                if SocketAddress(ipLiteral: key.host, port: key.port) == nil { timing.dns = resolved - start }
                stream = try await SocketStream.connect(to: addresses, host: key.host, on: loop, options: socketOptions)
            }
            let connected = ContinuousClock.now
            timing.connect = connected - resolved
            var speaksHTTP2 = key.tls == nil && key.requiresHTTP2
            if let tls = key.tls {
                try await stream.handshake(tls, host: key.host, port: key.port, timeout: socketOptions.connectTimeout)
                timing.tls = .now - connected
                if logger != nil, tls.sessionResumption { logHandshake(key, of: stream) }
                speaksHTTP2 = await stream.tlsInfo?.applicationProtocol == "h2"
                if key.requiresHTTP2, !speaksHTTP2 {
                    await stream.close()
                    throw HTTPClientError(.http2, "the server did not agree to HTTP/2 (ALPN h2)")
                }
            }
            if speaksHTTP2 {
                try establishedHTTP2(id, in: origin, stream: stream, timing: timing)
            } else {
                established(id, in: origin, stream: stream, timing: timing)
            }
        } catch {
            origin.connectError = error
            perform(in: origin) { $0.connectionFailed(id, now: .now) }
        }
    }

    private func established(_ id: Int, in origin: Origin, stream: SocketStream, timing: RequestTiming) {
        let connection = HTTP1Connection(id: id, stream: stream, maxHeaderBytes: maxHeaderBytes, setupTiming: timing) {
            [weak self, weak origin] connection, reusable in
            guard let self, let origin else { return }
            self.onLoop((id, origin, connection, reusable)) { me, report in
                me.reported(report.0, in: report.1, connection: report.2, reusable: report.3)
            }
        }
        origin.connections[id] = .http1(connection)
        origin.fresh.insert(id)
        perform(in: origin) { $0.connectionEstablished(id, now: .now) }
        if origin.connections[id] == nil { origin.fresh.remove(id) }
    }

    private func establishedHTTP2(_ id: Int, in origin: Origin, stream: SocketStream, timing: RequestTiming) throws(HTTPClientError) {
        let connection = try HTTP2Connection(id: id, stream: stream, configuration: http2, maxHeaderBytes: maxHeaderBytes,
                                             setupTiming: timing) { [weak self, weak origin] connection, report in
            guard let self, let origin else { return }
            self.onLoop((id, origin, connection, report)) { me, event in
                me.reported(event.0, in: event.1, connection: event.2, event.3)
            }
        }
        let capacity = connection.assumeIsolated { $0.capacity }
        origin.connections[id] = .http2(connection)
        origin.fresh.insert(id)
        perform(in: origin) { $0.connectionEstablished(id, capacity: capacity, multiplexed: true, now: .now) }
        if origin.connections[id] == nil { origin.fresh.remove(id) }
    }

    /// An HTTP/2 connection's stream ended, its capacity changed, it went away or closed.
    private func reported(_ id: Int, in origin: Origin, connection: HTTP2Connection, _ report: HTTP2Connection.Report) {
        guard case .http2(let current)? = origin.connections[id], current === connection else { return }
        switch report {
        case .streamEnded:
            perform(in: origin) { $0.connectionReleased(id, reusable: true, now: .now) }
        case .capacity(let capacity):
            perform(in: origin) { $0.connectionCapacityChanged(id, capacity: capacity, now: .now) }
        case .draining:
            perform(in: origin) { $0.connectionDraining(id, now: .now) }
        case .closed:
            origin.connections[id] = nil
            origin.fresh.remove(id)
            perform(in: origin) { $0.connectionClosed(id, now: .now) }
        }
    }

    /// A connection ended an exchange, or closed while idle.
    private func reported(_ id: Int, in origin: Origin, connection: HTTP1Connection, reusable: Bool) {
        guard case .http1(let current)? = origin.connections[id], current === connection else { return }
        if origin.leased.remove(id) != nil {
            perform(in: origin) { $0.connectionReleased(id, reusable: reusable, now: .now) }
        } else {
            origin.connections[id] = nil
            origin.fresh.remove(id)
            perform(in: origin) { $0.connectionClosed(id, now: .now) }
        }
    }

    private func armSweep() {
        guard sweepTimer == nil, !isShutDown, origins.values.contains(where: { $0.machine.hasIdle }) else { return }
        sweepTimer = try? LoopTimer(on: loop)
        sweepTimer?.start(after: limits.idleTimeout) { [weak self] in
            self?.assumeIsolated { $0.sweep() }
        }
    }

    private func sweep() {
        sweepTimer?.close()
        sweepTimer = nil
        let now = ContinuousClock.now
        for origin in Array(origins.values) {
            let actions = origin.machine.sweep(now: now)
            if logger != nil { logIdleCloses(origin.key, actions) }
            perform(actions, in: origin)
        }
        if let next = origins.values.compactMap(\.machine.nextSweep).min() {
            sweepTimer = try? LoopTimer(on: loop)
            sweepTimer?.start(after: max(.milliseconds(1), next - .now)) { [weak self] in
                self?.assumeIsolated { $0.sweep() }
            }
        }
    }
}
