/// What keeps cookies for `HTTPClient` (`RequestOptions.cookies`), asked once per
/// request the client sends, redirects included.
///
/// Lifecycle of one request: before each hop goes out (the first request and every
/// redirect followed) the client asks `cookieHeader(for:)` for that hop's target and
/// adds the answer to the request's own `Cookie` field, if it has one; when that
/// hop's response head arrives, before the client decides whether to follow it, it
/// hands the hop's `Set-Cookie` values to `storeCookies(_:from:)`. So cookies set by
/// a redirect reach the next hop, and a hop to another host gets only that host's
/// cookies: the `Cookie` field a caller set is still removed on a redirect to another
/// origin (`RedirectPolicy`), and what the handler added for the first hop is never
/// carried over.
///
/// Both methods are called on the request's event loop: they should take a lock
/// briefly and never block.
public protocol HTTPCookieHandler: Sendable {
    /// The `Cookie` field value for a request to `target` (`name=value` pairs joined by
    /// `"; "`), or nil when no cookie applies.
    func cookieHeader(for target: HTTPTarget) -> String?

    /// Takes the `Set-Cookie` field values of a response from `target`, in the order
    /// they came (called only when there is at least one).
    func storeCookies(_ setCookieValues: [String], from target: HTTPTarget)
}

extension HTTPCookieHandler {
    /// `request` with the cookies for its target added to its `Cookie` field.
    func addingCookies(to request: HTTPClientRequest) -> HTTPClientRequest {
        guard let cookies = cookieHeader(for: request.target) else { return request }
        var request = request
        request.headers.appendCookies(cookies)
        return request
    }

    /// Hands the `Set-Cookie` fields of `head`, a response from `target`, to the handler.
    func receive(_ head: HTTP1Head, from target: HTTPTarget) {
        let values = head.headers.values(name: "Set-Cookie")
        if !values.isEmpty { storeCookies(values, from: target) }
    }
}

extension HTTPHeaders {
    /// Adds `cookies` (`name=value; …`) to the `Cookie` field: one field (RFC 6265 §5.4),
    /// the pairs the request had first.
    package mutating func appendCookies(_ cookies: String) {
        let given = values(name: "Cookie")
        remove(name: "Cookie")
        append(name: "Cookie", value: (given + [cookies]).joined(separator: "; "))
    }
}
