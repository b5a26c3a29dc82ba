/// A `FiberLogger` that prints lines at or above `minimumLevel` to standard output.
public struct PrintFiberLogger: FiberLogger {
    /// Lines below this level are dropped.
    public let minimumLevel: FiberLogLevel

    /// Prints lines at `minimumLevel` (default `.debug`) and above.
    public init(minimumLevel: FiberLogLevel = .debug) { self.minimumLevel = minimumLevel }

    /// True for `minimumLevel` and above.
    public func isLogging(_ level: FiberLogLevel) -> Bool { level >= minimumLevel }

    /// Prints `message` (without metadata).
    public func log(_ level: FiberLogLevel, _ message: String, metadata: [String: String]) {
        guard level >= minimumLevel else { return }
        print(message)
    }
}
