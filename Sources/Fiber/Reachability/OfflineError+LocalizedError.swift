import Foundation

extension OfflineError: LocalizedError {
    /// One sentence for people: the machine is offline.
    public var errorDescription: String? { "The network is unreachable: no route to reach \(host)." }
}
