/// The head of an HTTP/1.1 message as parsed: a response's status or a request's method and target.
public struct HTTP1Head: Sendable, Hashable {
    /// The response status (0 for requests).
    public var status: Int = 0
    /// The response's reason phrase.
    public var reason: String = ""
    /// The request method (empty for responses).
    public var method: String = ""
    /// The request target, as sent (empty for responses).
    public var target: String = ""
    /// `1.1` is (1, 1).
    public var version: (major: Int, minor: Int) = (1, 1)
    /// The header fields, in order.
    public var headers = HTTPHeaders()
    /// What llhttp concluded about keep-alive from the version and `Connection`.
    public var keepAlive = true
    /// `Content-Length`, when the message declared one.
    public var contentLength: Int?
    /// The message ends with its head whatever its fields say (a response to
    /// HEAD, a 1xx, 204 or 304): its `contentLength`, if any, describes the
    /// representation, not bytes that follow.
    package var hasNoBody = false

    public static func == (a: HTTP1Head, b: HTTP1Head) -> Bool {
        a.status == b.status && a.reason == b.reason && a.method == b.method && a.target == b.target
            && a.version == b.version && a.headers == b.headers && a.keepAlive == b.keepAlive && a.contentLength == b.contentLength
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(status)
        hasher.combine(method)
        hasher.combine(target)
        hasher.combine(headers)
    }
}
