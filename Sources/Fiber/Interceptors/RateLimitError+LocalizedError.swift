import Foundation

extension RateLimitError: LocalizedError {
    /// The same sentence as `description` (`rate limit of 2 requests per 1.0s exceeded`).
    public var errorDescription: String? { description }
}
