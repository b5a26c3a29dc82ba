/// Errors of the event loop itself (not of the sockets it drives).
public struct EventLoopError: Error, Hashable, Sendable, CustomStringConvertible {
    private enum Code: Hashable, Sendable { case shutdown, sharedGroupShutdown, alreadyShutDown }
    private let code: Code

    /// The loop (or its group) was shut down; nothing new can be scheduled on it.
    public static let shutdown = EventLoopError(code: .shutdown)
    /// `EventLoopGroup.shared` lives as long as the process and cannot be shut down.
    public static let sharedGroupShutdown = EventLoopError(code: .sharedGroupShutdown)
    /// `shutdown()` was called twice on the same group.
    public static let alreadyShutDown = EventLoopError(code: .alreadyShutDown)

    public var description: String {
        switch code {
        case .shutdown: "the event loop was shut down; no new work or sockets can be scheduled on it"
        case .sharedGroupShutdown: "EventLoopGroup.shared lives for the whole process and cannot be shut down"
        case .alreadyShutDown: "the event loop group is already shut down"
        }
    }
}
