import Foundation

extension ChildProcess.SpawnError: LocalizedError {
    /// The same sentence as `description`.
    public var errorDescription: String? { description }
}

extension TestHTTPServerError: LocalizedError {
    /// The same sentence as `description`.
    public var errorDescription: String? { description }
}

extension TestCertificates.GenerationError: LocalizedError {
    /// The same sentence as `description`.
    public var errorDescription: String? { description }
}

extension ConditionTimedOut: LocalizedError {
    /// The same sentence as `description`.
    public var errorDescription: String? { description }
}
