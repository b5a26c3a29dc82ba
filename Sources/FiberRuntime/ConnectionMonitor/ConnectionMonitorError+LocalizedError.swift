import FoundationEssentials

extension ConnectionMonitorError: LocalizedError {
    /// The same sentence as `description`.
    public var errorDescription: String? { description }
}
