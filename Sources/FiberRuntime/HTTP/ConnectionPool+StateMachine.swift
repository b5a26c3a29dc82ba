import DequeModule

/// The rules of one pool of connections to one origin, as a pure value: which
/// connection a request gets, when to open or close one, and which waiter
/// fails. It holds IDs, never sockets; the pool actor performs its actions.
///
/// Limits: at most `maxConnections` open or opening; waiters served in FIFO
/// order; at most `maxIdle` idle connections; an idle connection older than
/// `idleTimeout`, or any connection older than `maxLifetime`, is closed. The
/// most recently used idle connection goes first (its socket is warmest; the
/// others can time out).
struct ConnectionPoolStateMachine {
    typealias ConnectionID = Int
    typealias WaiterID = Int

    struct Limits: Equatable {
        var maxConnections = 8
        var maxIdle = 8
        var idleTimeout: Duration = .seconds(60)
        var maxLifetime: Duration? = nil
    }

    enum Failure: Equatable { case shutdown, timedOut, cancelled, connectFailed }

    enum Action: Equatable {
        case lease(ConnectionID, to: WaiterID)
        case createConnection(ConnectionID)
        case closeConnection(ConnectionID)
        case failWaiter(WaiterID, Failure)
    }

    private enum State: Equatable {
        case connecting
        case idle(since: ContinuousClock.Instant)
        case leased
    }

    private struct Connection: Equatable {
        var state: State
        let created: ContinuousClock.Instant
    }

    let limits: Limits
    private var connections: [ConnectionID: Connection] = [:]
    private var idle: [ConnectionID] = []   // most recently used last
    private var waiters = Deque<WaiterID>()
    private var nextID: ConnectionID = 1
    private(set) var isShutDown = false

    init(limits: Limits) {
        self.limits = limits
    }

    // MARK: Events

    /// A request wants a connection.
    mutating func leaseRequested(_ waiter: WaiterID, now: ContinuousClock.Instant) -> [Action] {
        if isShutDown { return [.failWaiter(waiter, .shutdown)] }
        var actions: [Action] = []
        while let id = idle.popLast() {
            if isPastLifetime(id, now: now) {
                connections[id] = nil
                actions.append(.closeConnection(id))
                continue
            }
            setState(id, .leased)
            actions.append(.lease(id, to: waiter))
            return actions
        }
        waiters.append(waiter)
        // Only for a waiter that no connection being opened will serve: one freed
        // meanwhile serves the oldest waiter, and a connection opened for each
        // waiter regardless would be surplus (slow connects made up to twice the
        // connections there were requests).
        return actions + replenish(now: now)
    }

    /// A new connection is ready.
    mutating func connectionEstablished(_ id: ConnectionID, now: ContinuousClock.Instant) -> [Action] {
        guard connections[id]?.state == .connecting else { return [] }
        if isShutDown {
            connections[id] = nil
            return [.closeConnection(id)]
        }
        return handOver(id, now: now)
    }

    /// Opening a connection failed: the oldest waiter gets the error (so a
    /// refused connection fails a request at once rather than at its deadline).
    mutating func connectionFailed(_ id: ConnectionID, now: ContinuousClock.Instant) -> [Action] {
        guard connections[id]?.state == .connecting else { return [] }
        connections[id] = nil
        guard let waiter = waiters.popFirst() else { return [] }
        return [.failWaiter(waiter, .connectFailed)] + replenish(now: now)
    }

    /// A leased connection finished its exchange.
    mutating func connectionReleased(_ id: ConnectionID, reusable: Bool, now: ContinuousClock.Instant) -> [Action] {
        guard connections[id]?.state == .leased else { return [] }
        if !reusable || isShutDown || isPastLifetime(id, now: now) {
            connections[id] = nil
            return [.closeConnection(id)] + replenish(now: now)
        }
        return handOver(id, now: now)
    }

    /// A connection closed on its own (the server closed it while idle, or it failed).
    mutating func connectionClosed(_ id: ConnectionID, now: ContinuousClock.Instant) -> [Action] {
        guard connections[id] != nil else { return [] }
        connections[id] = nil
        idle.removeAll { $0 == id }
        return replenish(now: now)
    }

    /// A waiter gave up: its deadline passed or its task was cancelled.
    mutating func waiterLeft(_ waiter: WaiterID, because failure: Failure) -> [Action] {
        guard let i = waiters.firstIndex(of: waiter) else { return [] }
        waiters.remove(at: i)
        return [.failWaiter(waiter, failure)]
    }

    /// Periodic: close idle connections past their idle timeout or lifetime.
    mutating func sweep(now: ContinuousClock.Instant) -> [Action] {
        let expired = idle.filter { id in
            guard case .idle(let since)? = connections[id]?.state else { return true }
            return now - since >= limits.idleTimeout || isPastLifetime(id, now: now)
        }
        idle.removeAll { expired.contains($0) }
        for id in expired { connections[id] = nil }
        return expired.map(Action.closeConnection)
    }

    /// Close everything idle, fail every waiter; leased connections close when
    /// released, and connections being opened once established (the pool has no
    /// socket to close for them yet: forgotten now, they would stay open).
    mutating func shutdown() -> [Action] {
        isShutDown = true
        var actions = waiters.map { Action.failWaiter($0, .shutdown) }
        waiters.removeAll()
        for (id, connection) in connections {
            guard case .idle = connection.state else { continue }
            actions.append(.closeConnection(id))
            connections[id] = nil
        }
        idle.removeAll()
        return actions.sorted { "\($0)" < "\($1)" }
    }

    // MARK: Reading

    struct Statistics: Equatable, Sendable {
        var open = 0, idle = 0, leased = 0, connecting = 0, waiting = 0
    }

    var statistics: Statistics {
        var s = Statistics(open: connections.count, waiting: waiters.count)
        for connection in connections.values {
            switch connection.state {
            case .connecting: s.connecting += 1
            case .idle: s.idle += 1
            case .leased: s.leased += 1
            }
        }
        return s
    }

    /// True when some connection is idle.
    var hasIdle: Bool { !idle.isEmpty }

    /// True when nothing is open, opening or waiting: the pool for this origin can go.
    var isEmpty: Bool { connections.isEmpty && waiters.isEmpty }

    /// The soonest time an idle connection may need closing, for the sweep timer.
    var nextSweep: ContinuousClock.Instant? {
        idle.compactMap { id -> ContinuousClock.Instant? in
            guard case .idle(let since)? = connections[id]?.state else { return nil }
            return since + limits.idleTimeout
        }.min()
    }

    // MARK: Helpers

    /// Read, changed, written back: the in-place form (`connections[id]?.state = …`)
    /// goes through the dictionary's modify coroutine, which allocates its frame
    /// on every call here.
    private mutating func setState(_ id: ConnectionID, _ state: State) {
        guard var connection = connections[id] else { return }
        connection.state = state
        connections[id] = connection
    }

    private mutating func create(now: ContinuousClock.Instant) -> Action {
        let id = nextID
        nextID += 1
        connections[id] = Connection(state: .connecting, created: now)
        return .createConnection(id)
    }

    private mutating func handOver(_ id: ConnectionID, now: ContinuousClock.Instant) -> [Action] {
        if let waiter = waiters.popFirst() {
            setState(id, .leased)
            return [.lease(id, to: waiter)]
        }
        if idle.count >= limits.maxIdle {
            connections[id] = nil
            return [.closeConnection(id)]
        }
        setState(id, .idle(since: now))
        idle.append(id)
        return []
    }

    /// Opens connections for waiters that no opening connection will serve.
    private mutating func replenish(now: ContinuousClock.Instant) -> [Action] {
        guard connections.count < limits.maxConnections, !isShutDown, !waiters.isEmpty else { return [] }
        let opening = connections.values.reduce(0) { $0 + ($1.state == .connecting ? 1 : 0) }
        var actions: [Action] = []
        var unserved = waiters.count - opening
        while unserved > 0, connections.count < limits.maxConnections, !isShutDown {
            actions.append(create(now: now))
            unserved -= 1
        }
        return actions
    }

    private func isPastLifetime(_ id: ConnectionID, now: ContinuousClock.Instant) -> Bool {
        guard let lifetime = limits.maxLifetime, let connection = connections[id] else { return false }
        return now - connection.created >= lifetime
    }
}
