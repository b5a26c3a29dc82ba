import Foundation

extension BodyTooLarge: LocalizedError {
    /// One sentence for people: the limit the body passed.
    public var errorDescription: String? { "the response body is larger than the limit of \(limit) bytes" }
}
