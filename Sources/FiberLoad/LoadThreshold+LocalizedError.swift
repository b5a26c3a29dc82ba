import Foundation

extension LoadThreshold.ParseError: LocalizedError {
    /// The same sentence as `description` (`cannot use threshold "p99>5": …`).
    public var errorDescription: String? { description }
}
