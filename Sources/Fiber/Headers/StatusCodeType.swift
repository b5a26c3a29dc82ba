/// What kind of answer a status code is, by its hundred (RFC 9110 §15), so that
/// handling can speak of successes and client errors rather than numbers.
public enum StatusCodeType: String, Sendable, Hashable, CaseIterable, Codable {
    /// 100–199: provisional; the final response is still to come.
    case informational
    /// 200–299: the request was accepted.
    case successful
    /// 300–399: the resource is elsewhere (`Location`) or unchanged.
    case redirection
    /// 400–499: the request was at fault (authentication, validation, quota).
    case clientError
    /// 500–599: the server failed a valid request; often worth retrying later.
    case serverError
    /// -999, the code Apple's URL loading uses for a request the caller cancelled
    /// (Fiber throws `FiberError.cancelled` instead; kept for code that carries such codes).
    case cancelled
    /// Anything else: a code outside 100–599.
    case unknown

    /// The class of `code`.
    public init(_ code: Int) {
        switch code {
        case 100...199: self = .informational
        case 200...299: self = .successful
        case 300...399: self = .redirection
        case 400...499: self = .clientError
        case 500...599: self = .serverError
        case -999: self = .cancelled
        default: self = .unknown
        }
    }
}

extension Int {
    /// The class of this status code (`404.statusCodeType == .clientError`).
    public var statusCodeType: StatusCodeType { StatusCodeType(self) }
}

extension FiberResponse {
    /// The class of the response's status code.
    public var statusCodeType: StatusCodeType { StatusCodeType(statusCode) }
}
