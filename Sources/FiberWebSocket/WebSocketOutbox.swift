import DequeModule

/// The one queue every outgoing frame of a connection goes through, as a
/// value: it decides the order frames leave in, the connection's single
/// writer performs it. No I/O.
///
/// Order:
/// - Pings and pongs go ahead of messages not yet started, so a pong decided
///   before a message is sent always leaves before it (and a keep-alive ping
///   is not stuck behind a large backlog). A write already started is never
///   interrupted: a message is one vectored write, so no frame is split.
/// - Messages leave in the order they were queued.
/// - The close frame goes behind every message already accepted; after it
///   only the socket's close may be queued (no data, pings or pongs follow a
///   close frame).
///
/// Writer: one at a time. `claimWriter()` makes the caller the writer while
/// something is queued and nobody writes; the writer then takes `next()`
/// until it returns nil, which releases the claim.
struct WebSocketOutbox: Sendable {
    /// What the writer does next.
    enum Item: Sendable, Equatable {
        /// Writes these frames in one vectored write; `message` names the
        /// queued message whose sender waits for it (nil for control frames).
        case frames([[UInt8]], message: Int?)
        /// Closes the socket: everything queued before it has been written.
        case closeSocket
    }

    /// Pings and pongs, ahead of `ordered`.
    private var urgent = Deque<[UInt8]>()
    /// Messages, the close frame and the socket's close, in order.
    private var ordered = Deque<Item>()
    private var nextMessage = 0
    /// True while a writer holds the claim.
    private(set) var isWriting = false
    /// True once a close frame was queued (or everything was aborted).
    private(set) var isClosed = false

    init() {}

    /// Nothing queued.
    var isEmpty: Bool { urgent.isEmpty && ordered.isEmpty }

    /// Queues a ping or a pong ahead of the messages not yet started.
    ///
    /// - Returns: false once a close frame was queued (the frame is dropped).
    mutating func enqueueControl(_ frame: [UInt8]) -> Bool {
        guard !isClosed else { return false }
        urgent.append(frame)
        return true
    }

    /// Queues a message's frames behind everything queued so far.
    ///
    /// - Returns: the message's number, which `next()` hands back with its
    ///   frames; nil once a close frame was queued.
    mutating func enqueueMessage(_ frames: [[UInt8]]) -> Int? {
        guard !isClosed else { return nil }
        nextMessage &+= 1
        ordered.append(.frames(frames, message: nextMessage))
        return nextMessage
    }

    /// Queues the close frame behind every message already accepted; later
    /// messages, pings and pongs are refused.
    ///
    /// - Returns: false when a close frame was already queued.
    mutating func enqueueClose(_ frame: [UInt8]) -> Bool {
        guard !isClosed else { return false }
        isClosed = true
        ordered.append(.frames([frame], message: nil))
        return true
    }

    /// Queues the socket's close behind everything queued (the close frame included).
    mutating func enqueueSocketClose() {
        isClosed = true
        guard !ordered.contains(.closeSocket) else { return }
        ordered.append(.closeSocket)
    }

    /// Makes the caller the writer when nobody writes and something is queued.
    ///
    /// - Returns: true when the caller must now take `next()` until it returns nil.
    mutating func claimWriter() -> Bool {
        guard !isWriting, !isEmpty else { return false }
        isWriting = true
        return true
    }

    /// The writer's next item; nil when nothing is left, which ends the claim.
    mutating func next() -> Item? {
        precondition(isWriting, "next() without claimWriter()")
        if let control = urgent.popFirst() { return .frames([control], message: nil) }
        if let item = ordered.popFirst() { return item }
        isWriting = false
        return nil
    }

    /// Ends the claim of a writer that stops before the queue is empty (a
    /// sender that wrote its own message and returns to its caller).
    ///
    /// - Returns: true when items are left: the claim is kept, and the caller
    ///   must start another writer (which takes `next()` until nil).
    mutating func handOff() -> Bool {
        precondition(isWriting, "handOff() without claimWriter()")
        if isEmpty { isWriting = false }
        return isWriting
    }

    /// Drops everything queued (the socket is being closed at once); nothing
    /// more is accepted.
    ///
    /// - Returns: the numbers of the dropped messages, whose senders must be failed.
    mutating func abort() -> [Int] {
        isClosed = true
        let dropped = ordered.compactMap { item -> Int? in
            if case .frames(_, let message?) = item { message } else { nil }
        }
        urgent.removeAll()
        ordered.removeAll()
        return dropped
    }
}
