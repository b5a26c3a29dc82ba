/// Holds the tasks that call `wait()` until a test calls `open()`, so a test
/// orders concurrent work by its own hand instead of by sleeps.
public actor TestGate {
    private var isOpen = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    /// A closed gate.
    public init() {}

    /// How many tasks are waiting now.
    public var waiting: Int { waiters.count }

    /// Returns at once if the gate is open, else when it opens.
    public func wait() async {
        if isOpen { return }
        await withCheckedContinuation { waiters.append($0) }
    }

    /// Opens the gate for good, releasing every waiting task.
    public func open() {
        isOpen = true
        for waiter in waiters { waiter.resume() }
        waiters = []
    }
}
