/// The tasks of the requests in flight, in reusable slots: a request takes a
/// slot when it starts and gives it back when it ends, so a busy client stops
/// allocating once it has as many slots as it ever had requests at once, and
/// no key is hashed.
struct TaskSlots {
    private var tasks: [UnsafeCurrentTask?] = []
    private var free: [Int] = []

    /// Keeps `task` until `remove(at:)`; returns its slot.
    mutating func insert(_ task: UnsafeCurrentTask?) -> Int {
        if let slot = free.popLast() {
            tasks[slot] = task
            return slot
        }
        tasks.append(task)
        return tasks.count - 1
    }

    /// Forgets the task in `slot`.
    mutating func remove(at slot: Int) {
        tasks[slot] = nil
        free.append(slot)
    }

    /// Cancels every task kept.
    func cancelAll() {
        for task in tasks { task?.cancel() }
    }
}
