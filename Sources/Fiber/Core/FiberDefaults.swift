import Foundation
import FiberRuntime

/// Every tunable constant of Fiber in one value, injectable globally
/// (`FiberDefaults.shared`), per component (`RetryInterceptor(defaults:)`, …)
/// or per client (`Fiber(…) { $0.defaults = … }`).
///
/// Components read `shared` when they are created, so changing it later
/// affects components created later, never ones already running.
public struct FiberDefaults: Sendable {
    /// Random spread of each retry delay, as a fraction of it (±): 0.25.
    public var jitterFraction: Double
    /// Growth factor of the retry delay per attempt: 2.
    public var exponentialBackoffBase: Double
    /// Prefix of every `LoggingInterceptor` line: `HTTP`.
    public var loggingSystemName: String
    /// Bodies logged by `LoggingInterceptor` are cut after this many characters: 1000.
    public var logBodyTruncationLimit: Int
    /// How late `RateLimitInterceptor` may wake for a slot, in seconds (the sleep's tolerance): 0.1.
    public var rateLimitSleepIncrement: Double
    /// `Content-Type` of JSON bodies: `application/json`.
    public var jsonContentType: String
    /// Makes the trace ID of a request that runs outside any trace: a random (version 4) UUID
    /// string, as `UUID().uuidString` makes it, from a cheaper formatter.
    public var traceIDGenerator: @Sendable () -> String
    /// Close code a WebSocket sends when none is given: 1000.
    public var webSocketDefaultCloseCode: UInt16

    /// Defaults as documented for each field; pass only what you change.
    public init(
        jitterFraction: Double = 0.25,
        exponentialBackoffBase: Double = 2.0,
        loggingSystemName: String = "HTTP",
        logBodyTruncationLimit: Int = 1000,
        rateLimitSleepIncrement: Double = 0.1,
        jsonContentType: String = "application/json",
        traceIDGenerator: @escaping @Sendable () -> String = { RandomID.uuidString() },
        webSocketDefaultCloseCode: UInt16 = 1000
    ) {
        self.jitterFraction = jitterFraction
        self.exponentialBackoffBase = exponentialBackoffBase
        self.loggingSystemName = loggingSystemName
        self.logBodyTruncationLimit = logBodyTruncationLimit
        self.rateLimitSleepIncrement = rateLimitSleepIncrement
        self.jsonContentType = jsonContentType
        self.traceIDGenerator = traceIDGenerator
        self.webSocketDefaultCloseCode = webSocketDefaultCloseCode
    }

    private static let current = Locked(FiberDefaults())

    /// The process-wide defaults that components start from. Set it once at
    /// startup; reads and writes are safe from any thread.
    public static var shared: FiberDefaults {
        get { current.withLock { $0 } }
        set { current.withLock { $0 = newValue } }
    }
}
