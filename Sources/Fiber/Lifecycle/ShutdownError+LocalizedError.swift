import Foundation

extension ShutdownError: LocalizedError {
    /// One sentence for people: the client is shutting down.
    public var errorDescription: String? { "The client is shutting down: the request to \(url) was not sent." }
}
