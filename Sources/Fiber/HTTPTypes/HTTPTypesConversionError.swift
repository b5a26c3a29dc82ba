/// A Fiber value that swift-http-types cannot hold: `HTTPFields`, `HTTPRequest`
/// and `HTTPResponse` accept only what RFC 9110 allows, while Fiber's own types
/// take any text (and refuse it when it would be sent).
///
/// Thrown by `HTTPFields(validating:)`, `HTTPRequest(_:)` and `HTTPResponse(_:)`;
/// the conversions the other way never fail.
public struct HTTPTypesConversionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What could not be converted.
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        private enum Base: String, Sendable, Hashable {
            case invalidFieldName = "field name that is not an RFC 9110 token"
            case invalidFieldValue = "field value that RFC 9110 does not allow"
            case invalidMethod = "method that is not an RFC 9110 token"
            case invalidStatus = "status code outside 0...999"
            case invalidURL = "URL that is not absolute"
        }

        private let base: Base

        /// A header name that is not a token (empty, a space, a colon, a non-ASCII byte, …).
        public static let invalidFieldName = Kind(base: .invalidFieldName)
        /// A header value with a control byte (CR, LF, NUL, …), DEL, or spaces at either end.
        public static let invalidFieldValue = Kind(base: .invalidFieldValue)
        /// A method that is not a token (`HTTPRequest.Method` refuses it).
        public static let invalidMethod = Kind(base: .invalidMethod)
        /// A status code outside `0...999` (`HTTPResponse.Status` has no room for it).
        public static let invalidStatus = Kind(base: .invalidStatus)
        /// A request whose URL is not absolute, so it has no scheme and authority to give.
        public static let invalidURL = Kind(base: .invalidURL)

        /// What the kind means, in words.
        public var description: String { base.rawValue }
    }

    /// What could not be converted.
    public let kind: Kind
    /// The text that was refused: the field's name (also for a bad value, whose text may be a secret),
    /// the method, the status code or the URL.
    public let subject: String

    /// An error of `kind` about `subject`.
    public init(_ kind: Kind, subject: String) {
        self.kind = kind
        self.subject = subject
    }

    /// A one-line account, such as `a field value that RFC 9110 does not allow (in "X-Token")`.
    public var description: String { "a \(kind) (\(kind == .invalidFieldValue ? "in " : "")\"\(subject)\")" }
}
