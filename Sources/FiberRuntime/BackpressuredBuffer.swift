import DequeModule

/// A queue between one producer and one async consumer, with backpressure:
/// the runtime's one implementation of "bytes arrive faster than they are
/// read". A socket's buffered reads, a streamed HTTP response body and a
/// WebSocket's events are all this buffer.
///
/// Lifecycle: open → finished (`finish(nil)` or `finish(failure)`). Elements
/// pushed before the finish are still handed out in order; then `next()`
/// returns nil, or throws the failure, every time it is called. Pushes after
/// the finish are dropped.
///
/// Backpressure is `ReadBackpressure`, the pure watermark rule, over the
/// sizes the producer gives: once `highWatermark` is queued the producer is
/// told to stop, and once the consumer brings it down to `lowWatermark` it is
/// told to go on. An element handed straight to a waiting consumer is never counted.
/// The producer hears in one of two ways:
/// - a loop's producer (a socket reader) gives `controlReading(on:_:)` a
///   function called on that loop, only when the answer changes and never
///   after the finish. It must then call `push` and `finish` on that loop.
///   The consumer runs anywhere: when its reading lets the producer go on,
///   the change is applied on the loop, against the state there at that
///   moment, so a push past the high watermark in between is never undone.
/// - a task that produces awaits `waitForDemand()` after its pushes.
///
/// One consumer at a time: a `next()` while another waits ends at once
/// (`whenReadTwice`, or nil), as does a `next()` whose task is cancelled
/// while it waits (`whenCancelled`, or nil); no queued element is lost.
///
/// The consumer takes a queued element under a lock, without a hop to the
/// producer's loop or a continuation; only an empty queue suspends it.
/// (`@inlinable` members, and `@usableFromInline` on the type, without which
/// the compiler silently leaves a package type's members out of other modules:
/// so that the WebSocket's events are specialized for their element type.
/// Unspecialized, every call looked its generic metadata up at run time, ten
/// times the cost of the whole push and take.)
@usableFromInline
package final class BackpressuredBuffer<Element: Sendable, Failure: Error>: Sendable {
    @usableFromInline typealias Waiter = CheckedContinuation<Result<Element?, Failure>, Never>

    @usableFromInline
    struct State {
        @usableFromInline var queue = Deque<(element: Element, size: Int)>()
        @usableFromInline var rule: ReadBackpressure
        /// Nil while open; then `.some(nil)` for the end, or the failure.
        @usableFromInline var end: Failure?? = nil
        @usableFromInline var waiter: (id: Int, continuation: Waiter)?
        @usableFromInline var nextWaiterID = 0
        @usableFromInline var demandWaiters: [CheckedContinuation<Void, Never>] = []
        /// The producer's loop, its function, and what it was last told.
        @usableFromInline var control: (loop: EventLoop, setReading: (Bool) -> Void, isReading: Bool)?

        @usableFromInline init(rule: ReadBackpressure) { self.rule = rule }

        /// What to tell the producer when the rule's answer differs from what
        /// it was last told; records it as told.
        @usableFromInline
        mutating func readingChange() -> ReadingChange? {
            guard end == nil, let control, control.isReading != rule.isReading else { return nil }
            self.control?.isReading = rule.isReading
            return ReadingChange(setReading: control.setReading, reading: rule.isReading)
        }
    }

    // `Locked` guards the state. The producer's function is not `Sendable`:
    // it is kept here but only ever called on its loop (`controlReading`'s contract).
    private let state: Locked<State>
    @usableFromInline let whenCancelled: Failure?
    @usableFromInline let whenReadTwice: Failure?

    /// An open buffer. `whenCancelled` and `whenReadTwice` are what `next()`
    /// throws when its task is cancelled while it waits and when another
    /// `next()` is already waiting; nil ends the sequence (nil) instead.
    /// Needs `0 <= lowWatermark < highWatermark` (`ReadBackpressure`).
    package init(lowWatermark: Int, highWatermark: Int, whenCancelled: Failure?, whenReadTwice: Failure?) {
        state = Locked(State(rule: ReadBackpressure(lowWatermark: lowWatermark, highWatermark: highWatermark)))
        self.whenCancelled = whenCancelled
        self.whenReadTwice = whenReadTwice
    }

    /// Tells the producer to stop (false) and go on (true) reading, by calling
    /// `setReading` on `loop`; call before the first push, from `loop` or
    /// before the producer starts. `push` and `finish` must then be called on `loop`.
    package func controlReading(on loop: EventLoop, _ setReading: @escaping (Bool) -> Void) {
        withState { $0.control = (loop, setReading, $0.rule.isReading) }
    }

    /// Runs `body` with the state, under the lock. (The inlinable members go
    /// through here, as `Locked` is not visible to inlined code; their bodies
    /// are still specialized where they are inlined.)
    @usableFromInline
    func withState<R>(_ body: (inout State) -> R) -> R {
        state.withLock(body)
    }

    // MARK: Producing

    /// Queues `element`, counted as `size` (bytes, or what the owner counts),
    /// or hands it to the consumer waiting for it. Dropped after `finish`.
    @inlinable
    package func push(_ element: Element, size: Int) {
        // Plain optionals out of the lock: a generic enum of outcomes was
        // copied through the runtime's metadata even where specialized.
        let (waiter, change) = withState { s -> (Waiter?, ReadingChange?) in
            guard s.end == nil else { return (nil, nil) }
            if let waiter = s.waiter {
                s.waiter = nil
                return (waiter.continuation, nil)
            }
            s.queue.append((element, size))
            guard s.rule.received(size) == .stopReading else { return (nil, nil) }
            return (nil, s.readingChange())
        }
        waiter?.resume(returning: .success(element))
        change?.apply()
    }

    /// Ends the buffer after the queued elements: with nil, the end; with a
    /// failure, which `next()` throws once they are taken. Only the first call counts.
    package func finish(_ failure: Failure? = nil) {
        let (waiter, demand) = withState { s -> (Waiter?, [CheckedContinuation<Void, Never>]) in
            guard s.end == nil else { return (nil, []) }
            s.end = .some(failure)
            s.rule.finished()
            defer { s.waiter = nil; s.demandWaiters = [] }
            // A waiting consumer means an empty queue: it hears the end now.
            return (s.waiter?.continuation, s.demandWaiters)
        }
        waiter?.resume(returning: failure.map { .failure($0) } ?? .success(nil))
        for producer in demand { producer.resume() }
    }

    /// Returns once the consumer has caught up below the low watermark, or at
    /// once when it is not behind or the buffer is finished (a task producer's backpressure).
    package func waitForDemand() async {
        guard withState({ !$0.rule.isReading && $0.end == nil }) else { return }
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            // Decided again here: the consumer may have caught up since.
            let ready = withState { s -> Bool in
                if s.rule.isReading || s.end != nil { return true }
                s.demandWaiters.append(c)
                return false
            }
            if ready { c.resume() }
        }
    }

    /// What is queued and not yet taken, in the producer's units.
    package var bufferedSize: Int { withState { $0.rule.buffered } }
}

/// A producer to tell to stop (false) or go on (true) reading: found under
/// the buffer's lock, told outside it, on the producer's loop.
@usableFromInline
struct ReadingChange {
    @usableFromInline let setReading: (Bool) -> Void
    @usableFromInline let reading: Bool

    @usableFromInline
    init(setReading: @escaping (Bool) -> Void, reading: Bool) {
        self.setReading = setReading
        self.reading = reading
    }

    @usableFromInline
    func apply() { setReading(reading) }
}

extension BackpressuredBuffer where Failure == Never {
    /// An open buffer whose consumer sees the end (nil) when cancelled or read twice.
    package convenience init(lowWatermark: Int, highWatermark: Int) {
        self.init(lowWatermark: lowWatermark, highWatermark: highWatermark, whenCancelled: nil, whenReadTwice: nil)
    }
}
