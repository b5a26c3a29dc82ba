/// The connection pools of one event loop, one state machine per origin
/// (scheme, host, port, TLS configuration): an actor pinned to the loop,
/// whose only job is to perform what `ConnectionPoolStateMachine` decides.
actor ConnectionPool {
    struct Key: Hashable, Sendable {
        let scheme: String
        let host: String
        let port: Int
        /// The TLS configuration for https (nil for http): connections made with
        /// different trust, pins or identities never mix.
        let tls: TLSConfiguration?
    }

    private struct Ref: Hashable { let key: Key; let id: Int }

    struct Leased: Sendable {
        let connection: HTTP1Connection
        /// Set on a connection made for this lease: its connect timings.
        let setup: RequestTiming?
    }

    nonisolated let loop: EventLoop
    nonisolated var unownedExecutor: UnownedSerialExecutor { loop.executor }
    private let limits: ConnectionPoolStateMachine.Limits
    private let socketOptions: SocketOptions
    private let maxHeaderBytes: Int
    private let resolver: Resolver

    private var machines: [Key: ConnectionPoolStateMachine] = [:]
    private var connections: [Ref: HTTP1Connection] = [:]
    private var leased: Set<Ref> = []
    private var fresh: Set<Ref> = []
    private var waiters: [Int: (key: Key, result: OnceContinuation<Leased>, timer: LoopTimer?)] = [:]
    private var connectErrors: [Key: any Error] = [:]
    private var nextWaiterID = 0
    private var sweepTimer: LoopTimer?
    private var isShutDown = false

    init(loop: EventLoop, limits: ConnectionPoolStateMachine.Limits, socketOptions: SocketOptions,
         maxHeaderBytes: Int, resolver: Resolver) {
        self.loop = loop
        self.limits = limits
        self.socketOptions = socketOptions
        self.maxHeaderBytes = maxHeaderBytes
        self.resolver = resolver
    }

    /// A connection to `key`'s origin: an idle one at once, else when one is made or freed.
    ///
    /// - Throws: `HTTPClientError` `.deadlineExceeded` past `deadline`, `.shutdown`,
    ///   `.cancelled`, or the connect error (`.transport`) when opening one failed.
    func lease(_ key: Key, deadline: ContinuousClock.Instant?) async throws -> Leased {
        nextWaiterID += 1
        let waiterID = nextWaiterID
        let actions = update(key) { $0.leaseRequested(waiterID, now: .now) }
        // The common case, an idle connection: no waiter, no continuation.
        if actions.count == 1, case .lease(let id, to: waiterID) = actions[0], let connection = connections[Ref(key: key, id: id)] {
            let ref = Ref(key: key, id: id)
            leased.insert(ref)
            return Leased(connection: connection, setup: fresh.remove(ref) != nil ? connection.setupTiming : nil)
        }
        let result = OnceContinuation<Leased>()
        waiters[waiterID] = (key, result, nil)
        perform(actions, key: key)
        if waiters[waiterID] != nil, let deadline {
            let timer = try? LoopTimer(on: loop)
            waiters[waiterID]?.timer = timer
            timer?.start(after: deadline - .now) { [weak self] in
                self?.assumeIsolated { me in me.perform(updating: key) { $0.waiterLeft(waiterID, because: .timedOut) } }
            }
        }
        return try await withTaskCancellationHandler {
            try await result.wait()
        } onCancel: { [weak self] in
            guard let self else { return }
            try? loop.execute {
                self.assumeIsolated { me in me.perform(updating: key) { $0.waiterLeft(waiterID, because: .cancelled) } }
            }
        }
    }

    /// Counts of connections and waiters over every origin.
    func statistics() -> ConnectionPoolStateMachine.Statistics {
        machines.values.reduce(into: ConnectionPoolStateMachine.Statistics()) { sum, machine in
            let s = machine.statistics
            sum.open += s.open; sum.idle += s.idle; sum.leased += s.leased
            sum.connecting += s.connecting; sum.waiting += s.waiting
        }
    }

    /// Closes idle connections, fails waiters with `.shutdown`; leased ones close when released.
    func shutdown() {
        isShutDown = true
        for key in Array(machines.keys) { perform(updating: key) { $0.shutdown() } }
        sweepTimer?.close()
        sweepTimer = nil
    }

    // MARK: Performing actions

    private func perform(updating key: Key, _ event: (inout ConnectionPoolStateMachine) -> [ConnectionPoolStateMachine.Action]) {
        perform(update(key, event), key: key)
    }

    private func perform(_ actions: [ConnectionPoolStateMachine.Action], key: Key) {
        for action in actions { perform(action, key: key) }
        if let machine = machines[key], machine.isEmpty, !isShutDown { machines[key] = nil }
        armSweep()
    }

    /// Applies `event` to `key`'s machine, in place, and returns its actions.
    private func update(_ key: Key, _ event: (inout ConnectionPoolStateMachine) -> [ConnectionPoolStateMachine.Action])
        -> [ConnectionPoolStateMachine.Action]
    {
        if machines[key] == nil {
            // An origin first seen after shutdown starts shut down (it has nothing to act on yet).
            var machine = ConnectionPoolStateMachine(limits: limits)
            if isShutDown { _ = machine.shutdown() }
            machines[key] = machine
        }
        // Mutated in place: a copy would copy the machine's tables on every event.
        return event(&machines[key]!)
    }

    private func perform(_ action: ConnectionPoolStateMachine.Action, key: Key) {
        switch action {
        case .lease(let id, let waiterID):
            let ref = Ref(key: key, id: id)
            guard let waiter = waiters.removeValue(forKey: waiterID), let connection = connections[ref] else { return }
            waiter.timer?.close()
            leased.insert(ref)
            let setup = fresh.remove(ref) != nil ? connection.setupTiming : nil
            if !waiter.result.resume(with: .success(Leased(connection: connection, setup: setup))) {
                // The waiter left in the same instant: give the connection back.
                leased.remove(ref)
                perform(updating: key) { $0.connectionReleased(id, reusable: true, now: .now) }
            }
        case .createConnection(let id):
            connect(Ref(key: key, id: id))
        case .closeConnection(let id):
            let ref = Ref(key: key, id: id)
            leased.remove(ref)
            fresh.remove(ref)
            if let connection = connections.removeValue(forKey: ref) {
                connection.assumeIsolated { $0.close(HTTPClientError(.connectionClosed, "closed by the pool")) }
            }
        case .failWaiter(let waiterID, let failure):
            guard let waiter = waiters.removeValue(forKey: waiterID) else { return }
            waiter.timer?.close()
            let error: any Error = switch failure {
            case .shutdown: HTTPClientError(.shutdown)
            case .timedOut: HTTPClientError(.deadlineExceeded, "while waiting for a connection")
            case .cancelled: HTTPClientError(.cancelled)
            case .connectFailed: connectErrors.removeValue(forKey: key) ?? HTTPClientError(.transport, "connect failed")
            }
            waiter.result.resume(with: .failure(error))
        }
    }

    private func connect(_ ref: Ref) {
        // Not a child of the waiter's task: the connection outlives the request that asked for it.
        Task(executorPreference: loop) { await self.open(ref) }
    }

    private func open(_ ref: Ref) async {
        let start = ContinuousClock.now
        var timing = RequestTiming()
        do {
            let addresses = try await resolver.resolve(host: ref.key.host, port: ref.key.port, on: loop)
            let resolved = ContinuousClock.now
            if SocketAddress(ipLiteral: ref.key.host, port: ref.key.port) == nil { timing.dns = resolved - start }
            let stream = try await SocketStream.connect(to: addresses, host: ref.key.host, on: loop, options: socketOptions)
            let connected = ContinuousClock.now
            timing.connect = connected - resolved
            if let tls = ref.key.tls {
                try await stream.handshake(tls, host: ref.key.host, port: ref.key.port, timeout: socketOptions.connectTimeout)
                timing.tls = .now - connected
            }
            established(ref, stream: stream, timing: timing)
        } catch {
            connectErrors[ref.key] = error
            perform(updating: ref.key) { $0.connectionFailed(ref.id, now: .now) }
        }
    }

    private func established(_ ref: Ref, stream: SocketStream, timing: RequestTiming) {
        let connection = HTTP1Connection(id: ref.id, stream: stream, maxHeaderBytes: maxHeaderBytes, setupTiming: timing) {
            [weak self] connection, reusable in
            self?.assumeIsolated { $0.reported(ref, connection: connection, reusable: reusable) }
        }
        connections[ref] = connection
        fresh.insert(ref)
        perform(updating: ref.key) { $0.connectionEstablished(ref.id, now: .now) }
        if connections[ref] == nil { fresh.remove(ref) }
    }

    /// A connection ended an exchange, or closed while idle.
    private func reported(_ ref: Ref, connection: HTTP1Connection, reusable: Bool) {
        guard connections[ref] === connection else { return }
        if leased.remove(ref) != nil {
            perform(updating: ref.key) { $0.connectionReleased(ref.id, reusable: reusable, now: .now) }
        } else {
            connections[ref] = nil
            fresh.remove(ref)
            perform(updating: ref.key) { $0.connectionClosed(ref.id, now: .now) }
        }
    }

    private func armSweep() {
        guard !isShutDown, sweepTimer == nil, machines.values.contains(where: { $0.hasIdle }) else { return }
        sweepTimer = try? LoopTimer(on: loop)
        sweepTimer?.start(after: limits.idleTimeout) { [weak self] in
            self?.assumeIsolated { $0.sweep() }
        }
    }

    private func sweep() {
        sweepTimer?.close()
        sweepTimer = nil
        let now = ContinuousClock.now
        for key in Array(machines.keys) { perform(updating: key) { $0.sweep(now: now) } }
        if let next = machines.values.compactMap(\.nextSweep).min() {
            sweepTimer = try? LoopTimer(on: loop)
            sweepTimer?.start(after: max(.milliseconds(1), next - .now)) { [weak self] in
                self?.assumeIsolated { $0.sweep() }
            }
        }
    }
}
