/// A log message whose interpolated values carry their privacy:
///
/// ```swift
/// logger.log(.info, "user \(userID, privacy: .private) signed in from \(path, privacy: .public)")
/// ```
///
/// A value interpolated without `privacy:` is `.auto` (private unless the policy's
/// rule says otherwise). The literal text is always shown.
public struct FiberLogMessage: ExpressibleByStringInterpolation, Sendable, CustomStringConvertible {
    fileprivate enum Part: Sendable {
        case literal(String)
        case value(String, LogPrivacy)
    }

    fileprivate var parts: [Part]

    /// A message of literal text only.
    public init(stringLiteral value: String) { parts = [.literal(value)] }

    /// A message built by interpolation.
    public init(stringInterpolation: StringInterpolation) { parts = stringInterpolation.parts }

    /// A message that is one value at `privacy`.
    public init(_ value: String, privacy: LogPrivacy) { parts = [.value(value, privacy)] }

    /// The pieces of an interpolated message.
    public struct StringInterpolation: StringInterpolationProtocol {
        fileprivate var parts: [Part] = []

        /// Room for the parts.
        public init(literalCapacity: Int, interpolationCount: Int) { parts.reserveCapacity(interpolationCount * 2 + 1) }

        /// Literal text, always shown.
        public mutating func appendLiteral(_ literal: String) { if !literal.isEmpty { parts.append(.literal(literal)) } }

        /// A value, shown as `privacy` allows.
        public mutating func appendInterpolation<Value>(_ value: Value, privacy: LogPrivacy = .auto) {
            parts.append(.value(String(describing: value), privacy))
        }
    }

    /// The message as `policy` lets a log show it.
    public func rendered(by policy: LogPrivacyPolicy) -> String {
        parts.map { part in
            switch part {
            case .literal(let text): text
            case .value(let value, let privacy): policy.render(value, privacy)
            }
        }.joined()
    }

    /// The message with the default policy: private and automatic values hidden.
    public var description: String { rendered(by: LogPrivacyPolicy()) }
}

extension FiberLogger {
    /// Writes `message` with each value shown as `policy` allows (by default: private
    /// and automatic values as `<private>`, sensitive ones as `<redacted>`).
    public func log(_ level: FiberLogLevel, _ message: FiberLogMessage, privacy policy: LogPrivacyPolicy = LogPrivacyPolicy(),
                    metadata: [String: String] = [:]) {
        guard isLogging(level) else { return }
        log(level, message.rendered(by: policy), metadata: metadata)
    }
}
