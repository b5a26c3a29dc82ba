import Foundation

extension RequestItems.ParseError: LocalizedError {
    /// The same sentence as `description` (`cannot use "a:=x": …`).
    public var errorDescription: String? { description }
}
