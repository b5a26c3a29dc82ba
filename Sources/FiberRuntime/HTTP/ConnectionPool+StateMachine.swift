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
        /// Requests it serves at once: 1 for HTTP/1.1, the stream limit for HTTP/2.
        var capacity = 1
        /// Requests it serves now.
        var inUse = 0
        /// Takes no new request (an HTTP/2 GOAWAY, or past its lifetime); closes when none is left.
        var draining = false
        /// Serves several requests at once (HTTP/2), even while its capacity is 1.
        var isMultiplexed = false
    }

    let limits: Limits
    private var connections: [ConnectionID: Connection] = [:]
    private var idle: [ConnectionID] = []   // most recently used last
    /// Multiplexed connections serving requests with room for more (the first is filled first).
    private var spare: [ConnectionID] = []
    /// The capacity of the last connection established: what a connection being
    /// opened is expected to serve (1 until the origin is known to speak HTTP/2).
    private var expectedCapacity = 1
    private var waiters = Deque<WaiterID>()
    private var nextID: ConnectionID = 1
    private(set) var isShutDown = false

    init(limits: Limits) {
        self.limits = limits
    }

    // MARK: Events

    /// A request wants a connection: a multiplexed one with room first, then the idle one used last.
    mutating func leaseRequested(_ waiter: WaiterID, now: ContinuousClock.Instant) -> [Action] {
        if isShutDown { return [.failWaiter(waiter, .shutdown)] }
        if let id = spare.first {
            useSlot(of: id)
            return [.lease(id, to: waiter)]
        }
        var actions: [Action] = []
        while let id = idle.popLast() {
            if isPastLifetime(id, now: now) {
                connections[id] = nil
                actions.append(.closeConnection(id))
                continue
            }
            useSlot(of: id)
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

    /// A new connection is ready, serving `capacity` requests at once; a
    /// `multiplexed` one (HTTP/2) may change its capacity later.
    mutating func connectionEstablished(_ id: ConnectionID, capacity: Int = 1, multiplexed: Bool = false,
                                        now: ContinuousClock.Instant) -> [Action] {
        guard var connection = connections[id], connection.state == .connecting else { return [] }
        // A multiplexed connection serves one stream until the server's SETTINGS come, about a
        // round trip later: the next one opened is expected to serve as many as HTTP/2 servers allow.
        expectedCapacity = multiplexed ? max(capacity, 100) : capacity
        if isShutDown {
            connections[id] = nil
            return [.closeConnection(id)]
        }
        // Opened for waiters that another multiplexed connection has served meanwhile: surplus.
        if multiplexed, waiters.isEmpty, !spare.isEmpty || idle.contains(where: { connections[$0]?.isMultiplexed == true }) {
            connections[id] = nil
            return [.closeConnection(id)]
        }
        connection.capacity = capacity
        connection.isMultiplexed = multiplexed
        connections[id] = connection
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

    /// A leased connection finished its exchange (an HTTP/2 connection: one of its streams).
    mutating func connectionReleased(_ id: ConnectionID, reusable: Bool, now: ContinuousClock.Instant) -> [Action] {
        guard var connection = connections[id], connection.state == .leased, connection.inUse > 0 else { return [] }
        connection.inUse -= 1
        if !reusable || isShutDown || connection.draining || isPastLifetime(id, now: now) {
            guard connection.inUse == 0 else {
                // Streams are still in flight: it takes no new one, and closes after the last.
                connection.draining = true
                connections[id] = connection
                spare.removeAll { $0 == id }
                return []
            }
            connections[id] = nil
            spare.removeAll { $0 == id }
            return [.closeConnection(id)] + replenish(now: now)
        }
        connections[id] = connection
        return handOver(id, now: now)
    }

    /// A multiplexed connection now serves `capacity` requests at once (the server's SETTINGS).
    mutating func connectionCapacityChanged(_ id: ConnectionID, capacity: Int, now: ContinuousClock.Instant) -> [Action] {
        guard var connection = connections[id], connection.state != .connecting, connection.isMultiplexed else { return [] }
        connection.capacity = max(capacity, 1)
        connections[id] = connection
        expectedCapacity = connection.capacity
        spare.removeAll { $0 == id }
        if connection.inUse > 0, connection.inUse < connection.capacity, !connection.draining { spare.append(id) }
        return connection.draining ? [] : handOver(id, now: now)
    }

    /// A connection takes no new request (HTTP/2 GOAWAY): it closes after its last one.
    mutating func connectionDraining(_ id: ConnectionID, now: ContinuousClock.Instant) -> [Action] {
        guard var connection = connections[id] else { return [] }
        spare.removeAll { $0 == id }
        idle.removeAll { $0 == id }
        if connection.inUse == 0 {
            connections[id] = nil
            return [.closeConnection(id)] + replenish(now: now)
        }
        connection.draining = true
        connections[id] = connection
        return replenish(now: now)
    }

    /// A connection closed on its own (the server closed it while idle, or it failed).
    mutating func connectionClosed(_ id: ConnectionID, now: ContinuousClock.Instant) -> [Action] {
        guard connections[id] != nil else { return [] }
        connections[id] = nil
        idle.removeAll { $0 == id }
        spare.removeAll { $0 == id }
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

    /// Gives `id`'s free slots to the oldest waiters; with none left in use, it goes idle (or closes past `maxIdle`).
    private mutating func handOver(_ id: ConnectionID, now: ContinuousClock.Instant) -> [Action] {
        guard let connection = connections[id] else { return [] }
        if !connection.isMultiplexed {
            if let waiter = waiters.popFirst() {
                useSlot(of: id)
                return [.lease(id, to: waiter)]
            }
        } else {
            var actions: [Action] = []
            while connections[id].map({ $0.inUse < $0.capacity && !$0.draining }) == true, let waiter = waiters.popFirst() {
                useSlot(of: id)
                actions.append(.lease(id, to: waiter))
            }
            if connections[id]?.inUse != 0 {
                if actions.isEmpty, !spare.contains(id), connections[id].map({ $0.inUse < $0.capacity && !$0.draining }) == true {
                    spare.append(id)
                }
                return actions
            }
        }
        spare.removeAll { $0 == id }
        if idle.count >= limits.maxIdle {
            connections[id] = nil
            return [.closeConnection(id)]
        }
        setState(id, .idle(since: now))
        idle.append(id)
        return []
    }

    /// One more request on `id`; a multiplexed connection with room left stays in `spare`.
    private mutating func useSlot(of id: ConnectionID) {
        guard var connection = connections[id] else { return }
        connection.state = .leased
        connection.inUse += 1
        connections[id] = connection
        guard connection.isMultiplexed else { return }
        let hasRoom = connection.inUse < connection.capacity && !connection.draining
        if hasRoom, !spare.contains(id) { spare.append(id) } else if !hasRoom { spare.removeAll { $0 == id } }
    }

    /// Opens connections for waiters that no opening connection will serve.
    private mutating func replenish(now: ContinuousClock.Instant) -> [Action] {
        guard connections.count < limits.maxConnections, !isShutDown, !waiters.isEmpty else { return [] }
        let opening = connections.values.reduce(0) { $0 + ($1.state == .connecting ? 1 : 0) }
        var actions: [Action] = []
        var unserved = waiters.count - opening * expectedCapacity
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
