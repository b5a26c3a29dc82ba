import DequeModule

/// The consumer's side of `BackpressuredBuffer`: taking elements, waiting
/// for them, and letting the producer go on once the consumer caught up.
extension BackpressuredBuffer {
    /// The next element; nil at the end (or, with no failure given for them,
    /// when cancelled or when another consumer is waiting).
    ///
    /// - Throws: the failure `finish` was given, once the queued elements are
    ///   taken; `whenCancelled` or `whenReadTwice` as above.
    @inlinable
    package func next() async throws(Failure) -> Element? {
        // A queued element or the end needs no continuation; else the wait's
        // number (for its cancellation) is taken under the same lock.
        let (ready, resumes, waiterID) = withState { s -> (Result<Element?, Failure>?, Bool, Int) in
            if let first = s.queue.popFirst() {
                return (.success(first.element), s.rule.consumed(first.size) == .startReading, 0)
            }
            if let end = s.end { return (end.map { .failure($0) } ?? .success(nil), false, 0) }
            s.nextWaiterID &+= 1
            return (nil, false, s.nextWaiterID)
        }
        if resumes { producerMayGoOn() }
        if let ready { return try ready.get() }
        return try await wait(id: waiterID).get()
    }

    /// Takes every queued element at once, without waiting: for an owner
    /// that hands the queue on to another reader (a socket whose bytes go to
    /// TLS or to a parser in place). The producer may go on as after `next()`.
    package func takeQueued() -> [Element] {
        let (taken, resumes) = withState { s -> ([Element], Bool) in
            guard !s.queue.isEmpty else { return ([], false) }
            let taken = s.queue.map(\.element)
            let size = s.queue.reduce(0) { $0 + $1.size }
            s.queue.removeAll()
            return (taken, s.rule.consumed(size) == .startReading)
        }
        if resumes { producerMayGoOn() }
        return taken
    }

    /// Suspends until an element, the end, or the task's cancellation; `id`
    /// tells this wait from a later one to its cancellation handler.
    @inlinable
    func wait(id: Int) async -> Result<Element?, Failure> {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (c: Waiter) in
                // Decided here: the producer may have pushed or finished since the check in `next()`.
                let (ready, resumes) = withState { s -> (Result<Element?, Failure>?, Bool) in
                    if let first = s.queue.popFirst() {
                        return (.success(first.element), s.rule.consumed(first.size) == .startReading)
                    }
                    if let end = s.end { return (end.map { .failure($0) } ?? .success(nil), false) }
                    if s.waiter != nil { return (whenReadTwice.map { .failure($0) } ?? .success(nil), false) }
                    // The cancellation handler may already have run, finding no waiter.
                    if Task.isCancelled { return (whenCancelled.map { .failure($0) } ?? .success(nil), false) }
                    s.waiter = (id, c)
                    return (nil, false)
                }
                if resumes { producerMayGoOn() }
                if let ready { c.resume(returning: ready) }
            }
        } onCancel: {
            let waiter = withState { s -> Waiter? in
                guard let waiter = s.waiter, waiter.id == id else { return nil }
                s.waiter = nil
                return waiter.continuation
            }
            waiter?.resume(returning: whenCancelled.map { .failure($0) } ?? .success(nil))
        }
    }

    /// The consumer brought the queue down to the low watermark: a waiting
    /// task producer goes on, and a loop's producer is told so on its loop.
    @inlinable
    func producerMayGoOn() {
        let (demand, loop) = withState { s in
            defer { s.demandWaiters = [] }
            return (s.demandWaiters, s.control?.loop)
        }
        for producer in demand { producer.resume() }
        guard let loop else { return }
        if loop.inEventLoop {
            applyReading()
        } else {
            // If the loop is gone, so is the producer.
            try? loop.execute { self.applyReading() }
        }
    }

    /// On the producer's loop: tells it what the rule says now, if that changed.
    @usableFromInline
    func applyReading() {
        withState { $0.readingChange() }?.apply()
    }
}
