/// The connection monitor's decisions, as a value: what the kernel said, what
/// to ask it next, and when a change of reachability has settled. No I/O and
/// no clock: `RouteWatcher` performs the actions (sends dump requests, runs
/// the quiet-period timer, publishes) and reports back what happened.
///
/// Lifecycle:
/// 1. `started()` asks for a full read of the tables: links, then addresses,
///    then routes, one dump at a time (the kernel runs one per socket). The
///    dump fills fresh facts; notifications arriving meanwhile go into both.
/// 2. When the route dump ends, the fresh facts replace the old ones. The
///    first time, the status is published at once: that is the start.
/// 3. Afterwards every notification updates the facts. A status that differs
///    from the published one starts the quiet-period timer, restarted when
///    the status changes again; a status back to the published one stops it.
///    When the timer ends, the status then is published if it still differs.
/// 4. An overrun (`ENOBUFS`: the kernel dropped notifications), an interface
///    going down or away, or a lost address (after which the kernel may drop
///    IPv4 routes without a notice) trigger a new full read (step 2, not
///    published at once but through the timer like any change).
struct ConnectionMonitorStateMachine: Sendable {
    /// The three tables, read in this order.
    enum Dump: Equatable, Sendable { case links, addresses, routes }

    enum Action: Equatable, Sendable {
        /// Send a dump request for `dump`, numbered `sequence`.
        case requestDump(Dump, sequence: UInt32)
        /// (Re)start the quiet-period timer.
        case startQuietTimer
        /// Stop the quiet-period timer.
        case stopQuietTimer
        /// Tell the world the settled status (the first one ends the start).
        case publish(ConnectionMonitor.Status)
    }

    /// A full read in progress.
    private struct Resync: Sendable {
        var facts = NetworkFacts()
        var dump = Dump.links
        var sequence: UInt32
        var restart = false
    }

    /// Attempts in a row at a read that failed or was interrupted before one is used as it is.
    static let maxRetries = 3

    private(set) var facts = NetworkFacts()
    /// The status last published; nil until the first full read ends.
    private(set) var published: ConnectionMonitor.Status?
    private(set) var isTimerRunning = false
    private var resync: Resync?
    private var resyncAgain = false
    private var retries = 0
    private var lastSeen: ConnectionMonitor.Status?
    private var nextSequence: UInt32

    /// A machine whose first dump is numbered `firstSequence` (never 0, the number of notifications).
    init(firstSequence: UInt32 = 1) { nextSequence = max(1, firstSequence) }

    /// Whether a full read is in progress.
    var isReading: Bool { resync != nil }

    // MARK: Events

    /// The socket is open: read the tables.
    mutating func started() -> [Action] { beginResync() }

    /// A message arrived.
    mutating func received(_ item: NetlinkItem) -> [Action] {
        if let current = resync, item.sequence != 0, item.sequence == current.sequence {
            if item.interrupted { resync!.restart = true }
            switch item.message {
            case .done:
                return dumpEnded(failed: false)
            case .error(let code):
                return dumpEnded(failed: code != 0)
            case .link, .address, .route:
                resync!.facts.apply(item.message)
                return []
            }
        }
        switch item.message {
        case .link, .address, .route:
            break
        case .done, .error:
            return []  // the end of a dump that is no longer awaited, or an acknowledgement
        }
        let rereads = facts.invalidatesRoutes(item.message)
        let changed = facts.apply(item.message)
        resync?.facts.apply(item.message)
        var actions = rereads ? beginResync() : []
        if changed { actions += settle() }
        return actions
    }

    /// The kernel dropped notifications (`ENOBUFS`): the facts may be stale.
    /// A read under way finishes, and another follows it.
    mutating func overran() -> [Action] { beginResync() }

    /// A dump request could not be sent, or the kernel refused it.
    mutating func dumpFailed(sequence: UInt32) -> [Action] {
        guard let current = resync, current.sequence == sequence else { return [] }
        return dumpEnded(failed: true)
    }

    /// The quiet period ended without the status changing again.
    mutating func quietPeriodEnded() -> [Action] {
        guard isTimerRunning else { return [] }
        isTimerRunning = false
        let now = facts.status
        guard let published, now != published else { return [] }
        self.published = now
        return [.publish(now)]
    }

    // MARK: Steps

    private mutating func takeSequence() -> UInt32 {
        let sequence = nextSequence
        nextSequence = nextSequence == .max ? 1 : nextSequence + 1
        return sequence
    }

    private mutating func beginResync() -> [Action] {
        guard resync == nil else {
            resyncAgain = true
            return []
        }
        let sequence = takeSequence()
        resync = Resync(sequence: sequence)
        return [.requestDump(.links, sequence: sequence)]
    }

    private mutating func dumpEnded(failed: Bool) -> [Action] {
        guard var current = resync else { return [] }
        if failed || current.restart, retries < Self.maxRetries {
            retries += 1
            resync = nil
            return beginResync()
        }
        switch current.dump {
        case .links, .addresses:
            current.dump = current.dump == .links ? .addresses : .routes
            current.sequence = takeSequence()
            resync = current
            return [.requestDump(current.dump, sequence: current.sequence)]
        case .routes:
            resync = nil
            retries = 0
            facts = current.facts
            var actions = settle()
            if resyncAgain {
                resyncAgain = false
                actions += beginResync()
            }
            return actions
        }
    }

    /// Compares the facts' status with the published one and decides about the timer.
    private mutating func settle() -> [Action] {
        let now = facts.status
        let previous = lastSeen
        lastSeen = now
        guard let published else {
            // Only the end of the first full read publishes without a quiet period.
            guard resync == nil else { return [] }
            self.published = now
            return [.publish(now)]
        }
        if now == published {
            guard isTimerRunning else { return [] }
            isTimerRunning = false
            return [.stopQuietTimer]
        }
        guard now != previous || !isTimerRunning else { return [] }
        isTimerRunning = true
        return [.startQuietTimer]
    }
}
