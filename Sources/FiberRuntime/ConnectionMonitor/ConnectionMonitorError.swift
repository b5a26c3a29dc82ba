#if canImport(Glibc)
import Glibc
#endif

/// Why a `ConnectionMonitor` could not start.
public struct ConnectionMonitorError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong, as a small open set of values.
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }
        /// A few words for logs, such as "network namespace unavailable".
        public var description: String { name }

        /// The named network namespace could not be opened or entered
        /// (it does not exist, or the process lacks `CAP_SYS_ADMIN`).
        public static let namespaceUnavailable = Kind("network namespace unavailable")
        /// The netlink socket could not be created or bound.
        public static let socketFailed = Kind("netlink socket failed")
        /// The monitor's event loop was shut down.
        public static let eventLoopShutdown = Kind("event loop shut down")
        /// `stopMonitoring()` was called before the start finished.
        public static let stopped = Kind("stopped before it started")
    }

    /// What went wrong.
    public let kind: Kind
    /// The network namespace involved, when there is one.
    public let networkNamespace: String?
    /// The system's `errno`, when the failure came from the system.
    public let code: Int32?

    /// An error of `kind`, with what is known of where and why.
    public init(_ kind: Kind, networkNamespace: String? = nil, code: Int32? = nil) {
        self.kind = kind
        self.networkNamespace = networkNamespace
        self.code = code
    }

    /// "connection monitor: network namespace unavailable (namespace ci-1) [No such file or directory]".
    public var description: String {
        var text = "connection monitor: \(kind)"
        if let networkNamespace { text += " (namespace \(networkNamespace))" }
        if let code { text += " [\(String(cString: strerror(code)))]" }
        return text
    }
}
