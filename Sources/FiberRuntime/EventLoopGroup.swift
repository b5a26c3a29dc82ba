import CFiberShims
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A fixed set of event loops, each on its own thread.
///
/// `shared` is started lazily on first use and lives as long as the process.
/// A group you create yourself is shut down with `shutdown()`, which closes
/// every handle on every loop, runs the work still queued, and joins the threads.
public final class EventLoopGroup: Sendable {
    /// The loops of the group.
    public let loops: [EventLoop]
    private let cursor = Atomic<Int>(0)
    private let state = Locked(State.running)
    private let isShared: Bool

    private enum State { case running, shuttingDown, shutDown }

    /// The process-wide group, one loop per core, started on first use.
    public static let shared = EventLoopGroup(loopCount: systemCoreCount, name: "fiber-shared", isShared: true)

    /// The number of cores this process may run on.
    public static var systemCoreCount: Int {
        let count = Int(cfiber_available_cpus())
        return count > 0 ? count : max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
    }

    /// Starts `loopCount` loops (default: one per core), their threads named `name-N`.
    public convenience init(loopCount: Int = EventLoopGroup.systemCoreCount, name: String = "fiber-loop") {
        self.init(loopCount: loopCount, name: name, isShared: false)
    }

    private init(loopCount: Int, name: String, isShared: Bool) {
        precondition(loopCount > 0, "an event loop group needs at least one loop")
        Self.ignoreBrokenPipeSignal
        _ = MallocTopPad.applied
        self.isShared = isShared
        loops = (0..<loopCount).map { EventLoop(index: $0, name: "\(name)-\($0)") }
    }

    /// libuv writes with writev(2), which raises SIGPIPE on a socket the peer
    /// reset; the default action would kill the process. Like Node and NIO, the
    /// runtime ignores it (once, and only if nobody installed a handler), so
    /// the write fails with EPIPE and becomes a `TransportError` instead.
    private static let ignoreBrokenPipeSignal: Void = {
        var current = sigaction()
        if sigaction(SIGPIPE, nil, &current) == 0, current.__sigaction_handler.sa_handler == nil {
            signal(SIGPIPE, SIG_IGN)
        }
    }()

    /// The loop the caller is running on if it belongs to this group, else the
    /// next one in turn: work started from a loop stays on it, with no thread hop.
    public func next() -> EventLoop {
        if let current = EventLoop.current, loops.contains(where: { $0 === current }) { return current }
        let i = cursor.wrappingAdd(1, ordering: .relaxed).oldValue
        return loops[i % loops.count]
    }

    /// Closes every handle on every loop (their owners see `.eventLoopShutdown`),
    /// runs what is still queued, and joins every thread. Scheduling afterwards
    /// throws `EventLoopError.shutdown`.
    ///
    /// - Throws: `EventLoopError.sharedGroupShutdown` for `shared`;
    ///   `EventLoopError.alreadyShutDown` on a second call.
    public func shutdown() async throws(EventLoopError) {
        if isShared { throw .sharedGroupShutdown }
        let first = state.withLock { state -> Bool in
            guard case .running = state else { return false }
            state = .shuttingDown
            return true
        }
        guard first else { throw .alreadyShutDown }
        for loop in loops { loop.beginShutdown() }
        for loop in loops { await loop.waitForExit() }
        state.withLock { $0 = .shutDown }
    }
}
