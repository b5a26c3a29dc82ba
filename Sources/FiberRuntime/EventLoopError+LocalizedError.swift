import FoundationEssentials

extension EventLoopError: LocalizedError {
    /// The same sentence as `description`.
    public var errorDescription: String? { description }
}
