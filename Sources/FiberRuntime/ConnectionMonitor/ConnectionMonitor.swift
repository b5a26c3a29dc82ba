import Synchronization

/// Tells whether the machine can reach beyond itself, from the kernel's routing
/// tables, and reports settled changes.
///
/// ```swift
/// let monitor = ConnectionMonitor()
/// monitor.reachabilityChanged = { online in print(online ? "online" : "offline") }
/// try await monitor.startMonitoring()
/// print(monitor.isReachable, monitor.interfaceType ?? .other)
///
/// let api = Fiber("https://api.example.com") { $0.connectionMonitor = monitor }
/// ```
///
/// On Linux the monitor reads the kernel's links, addresses and routes over a
/// `NETLINK_ROUTE` socket polled by an event loop (no thread of its own):
/// reachable means a default route leaves through an interface that is up and
/// has a usable address (see `Docs/ConnectionMonitor.md`). Changes are
/// published once they have held for `quietPeriod`, so a route replaced in two
/// steps, or a link that flaps, is not reported.
///
/// Lifecycle: made stopped; `startMonitoring()` opens the socket and returns
/// once the first reading is known; `stopMonitoring()` (or the loop's
/// shutdown, a failure of the socket, or the monitor's release) closes it. Until the first reading and
/// after a stop the monitor knows nothing, and says reachable: a monitor that
/// does not know never makes requests fail. It can be started again.
///
/// Safe to use from any thread or task.
public final class ConnectionMonitor: Sendable {
    /// The network namespace watched (`/var/run/netns/NAME`), nil for the process's own.
    public let networkNamespace: String?
    /// How long a change must hold before it is published.
    public let quietPeriod: Duration
    /// The loop that polls the socket and runs the timer.
    public let eventLoop: EventLoop

    private let reachable = Atomic<Bool>(true)
    private let state = Locked(State())

    private struct State {
        var running = false
        /// Bumped by every start and stop, so a watcher of an earlier start is ignored.
        var generation = 0
        var watcher: RouteWatcher?
        var status: Status?
        var waiters: [CheckedContinuation<Result<Void, ConnectionMonitorError>, Never>] = []
        var callback: (@Sendable (Bool) -> Void)?
        var streams: [Int: AsyncStream<Status>.Continuation] = [:]
        var nextStream = 0
    }

    /// A monitor of the process's network namespace, or of `networkNamespace`: the name
    /// of one made by `ip netns add` (looked up in `/var/run/netns/`), or a path such as
    /// `/proc/PID/ns/net`. Watching another namespace needs `CAP_SYS_ADMIN`.
    ///
    /// - Parameters:
    ///   - networkNamespace: the namespace to watch (default nil: the process's own).
    ///   - quietPeriod: how long a change must hold before it is published (default half a second).
    ///   - eventLoop: the loop that polls the socket (default: one of `EventLoopGroup.shared`).
    public init(networkNamespace: String? = nil, quietPeriod: Duration = .milliseconds(500),
                eventLoop: EventLoop = EventLoopGroup.shared.next()) {
        self.networkNamespace = networkNamespace
        self.quietPeriod = max(quietPeriod, .zero)
        self.eventLoop = eventLoop
    }

    deinit {
        stopMonitoring()
        // Sequences made while stopped would otherwise wait for a start that can no longer come.
        let streams = state.withLock { state in
            defer { state.streams = [:] }
            return Array(state.streams.values)
        }
        for stream in streams { stream.finish() }
    }

    // MARK: Reading

    /// Whether the machine can reach beyond itself, as last settled. True while the
    /// monitor is stopped or has not finished starting.
    public var isReachable: Bool { reachable.load(ordering: .acquiring) }

    /// The kind of interface the preferred default route leaves through; nil when
    /// unreachable or unknown.
    public var interfaceType: InterfaceType? { state.withLock { $0.status?.interfaceType } }

    /// The settled status; nil while the monitor is stopped or starting.
    public var status: Status? { state.withLock { $0.status } }

    /// Called on the monitor's loop with the new value each time `isReachable`
    /// changes and the change has settled (not for the first reading). Keep it short.
    public var reachabilityChanged: (@Sendable (Bool) -> Void)? {
        get { state.withLock { $0.callback } }
        set { state.withLock { $0.callback = newValue } }
    }

    /// The current status as soon as it is known, then every settled change (of
    /// reachability or of interface type). The sequence ends when monitoring stops;
    /// one made while the monitor is stopped waits for the next start. Each call
    /// makes a new sequence; a slow reader skips to the newest statuses.
    public func changes() -> AsyncStream<Status> {
        let (stream, continuation) = AsyncStream.makeStream(of: Status.self, bufferingPolicy: .bufferingNewest(8))
        let id = state.withLock { state -> Int in
            let id = state.nextStream
            state.nextStream += 1
            state.streams[id] = continuation
            if let status = state.status { continuation.yield(status) }
            return id
        }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { _ = $0.streams.removeValue(forKey: id) }
        }
        return stream
    }

    // MARK: Starting and stopping

    /// Opens the netlink socket, reads the kernel's tables, and returns once
    /// `isReachable` reflects them. Does nothing when already started.
    ///
    /// - Throws: `ConnectionMonitorError`: `.namespaceUnavailable` when the namespace
    ///   does not exist or cannot be entered, `.socketFailed` when the socket cannot
    ///   be made, `.eventLoopShutdown` when the loop is shut down, `.stopped` when
    ///   `stopMonitoring()` is called before the start finished.
    public func startMonitoring() async throws(ConnectionMonitorError) {
        let result = await withCheckedContinuation { (waiter: CheckedContinuation<Result<Void, ConnectionMonitorError>, Never>) in
            let opening = state.withLock { state -> Int? in
                if state.running, state.status != nil { return -1 }
                state.waiters.append(waiter)
                guard !state.running else { return nil }
                state.running = true
                state.generation += 1
                return state.generation
            }
            if opening == -1 { return waiter.resume(returning: .success(())) }
            guard let generation = opening else { return }
            do {
                try eventLoop.execute { [weak self] in self?.open(generation) }
            } catch {
                ended(generation, error: ConnectionMonitorError(.eventLoopShutdown, networkNamespace: networkNamespace))
            }
        }
        try result.get()
    }

    /// Closes the socket. `isReachable` is true again (nothing is known), sequences
    /// from `changes()` end, and a start still under way throws `.stopped`. Safe to call twice.
    public func stopMonitoring() {
        let generation = state.withLock { $0.running ? $0.generation : nil }
        if let generation { ended(generation, error: ConnectionMonitorError(.stopped, networkNamespace: networkNamespace)) }
    }

    // MARK: The watcher's reports (on the loop)

    private func open(_ generation: Int) {
        guard state.withLock({ $0.running && $0.generation == generation }) else { return }
        let watcher: RouteWatcher
        do {
            watcher = try RouteWatcher(
                on: eventLoop, networkNamespace: networkNamespace, quietPeriod: quietPeriod,
                publish: { [weak self] in self?.published($0, generation) },
                stopped: { [weak self] in
                    self?.ended(generation, error: ConnectionMonitorError(.eventLoopShutdown, networkNamespace: self?.networkNamespace))
                })
        } catch {
            ended(generation, error: error)
            return
        }
        let current = state.withLock { state -> Bool in
            guard state.running, state.generation == generation else { return false }
            state.watcher = watcher
            return true
        }
        guard current else { return watcher.close() }
        watcher.start()
    }

    private func published(_ status: Status, _ generation: Int) {
        let (waiters, callback, streams) = state.withLock { state in
            guard state.running, state.generation == generation else {
                return ([CheckedContinuation<Result<Void, ConnectionMonitorError>, Never>](), nil as (@Sendable (Bool) -> Void)?,
                        [AsyncStream<Status>.Continuation]())
            }
            let previous = state.status
            state.status = status
            reachable.store(status.isReachable, ordering: .releasing)
            let waiters = state.waiters
            state.waiters = []
            let changed = previous.map { $0.isReachable != status.isReachable } ?? false
            return (waiters, changed ? state.callback : nil, Array(state.streams.values))
        }
        for waiter in waiters { waiter.resume(returning: .success(())) }
        callback?(status.isReachable)
        for stream in streams { stream.yield(status) }
    }

    /// Ends monitoring run `generation`: by `stopMonitoring()`, a failed start, or the socket's close.
    private func ended(_ generation: Int, error: ConnectionMonitorError) {
        let ending = state.withLock { state -> (RouteWatcher?, [CheckedContinuation<Result<Void, ConnectionMonitorError>, Never>],
                                                [AsyncStream<Status>.Continuation])? in
            guard state.running, state.generation == generation else { return nil }
            state.running = false
            state.generation += 1
            state.status = nil
            reachable.store(true, ordering: .releasing)
            let ending = (state.watcher, state.waiters, Array(state.streams.values))
            state.watcher = nil
            state.waiters = []
            state.streams = [:]
            return ending
        }
        guard let (watcher, waiters, streams) = ending else { return }
        for waiter in waiters { waiter.resume(returning: .failure(error)) }
        for stream in streams { stream.finish() }
        if let watcher {
            if eventLoop.inEventLoop {
                watcher.close()
            } else {
                try? eventLoop.execute { watcher.close() }
            }
        }
    }
}
