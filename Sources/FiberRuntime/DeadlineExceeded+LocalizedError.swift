import FoundationEssentials

extension DeadlineExceeded: LocalizedError {
    /// The same sentence as `description` (`deadline of 5.0 seconds exceeded`).
    public var errorDescription: String? { description }
}
