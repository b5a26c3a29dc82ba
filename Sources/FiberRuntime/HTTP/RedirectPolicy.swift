/// Which redirects the client follows, and how each changes the request
/// (RFC 9110 §15.4): a pure function of the response and the request.
public struct RedirectPolicy: Sendable, Hashable {
    /// Follow at most this many redirects (default 10); 0 returns 3xx responses as they are.
    public var maxRedirects: Int
    /// Follow a redirect from https to http (default no: it would expose the request).
    public var allowHTTPSToHTTP: Bool

    /// Follows up to `maxRedirects`; refuses https → http unless allowed.
    public init(maxRedirects: Int = 10, allowHTTPSToHTTP: Bool = false) {
        self.maxRedirects = maxRedirects
        self.allowHTTPSToHTTP = allowHTTPSToHTTP
    }

    /// Never follow redirects: 3xx responses are returned as they are.
    public static let never = RedirectPolicy(maxRedirects: 0)

    static let redirectStatuses: Set<Int> = [301, 302, 303, 307, 308]

    /// Where a response redirects to: its `Location` if its status redirects, else nil.
    static func location(of head: HTTP1Head) -> String? {
        redirectStatuses.contains(head.status) ? head.headers["Location"] : nil
    }

    /// The request to send after `status` with `location`, or nil when the response is final.
    ///
    /// - Throws: `HTTPClientError` `.tooManyRedirects`, `.redirectLoop`,
    ///   `.insecureRedirect`, `.invalidURL` (a bad `Location`).
    func next(after status: Int, location: String?, request: HTTPClientRequest, visited: inout Set<String>,
              followed: Int) throws(HTTPClientError) -> HTTPClientRequest? {
        guard Self.redirectStatuses.contains(status), let location, maxRedirects > 0 else { return nil }
        guard followed < maxRedirects else {
            throw HTTPClientError(.tooManyRedirects, "more than \(maxRedirects)", url: request.target.description)
        }
        let target = try request.target.resolving(location)
        if request.target.isSecure, !target.isSecure, !allowHTTPSToHTTP {
            throw HTTPClientError(.insecureRedirect, "to \(target)", url: request.target.description)
        }
        var next = request
        next.target = target
        // 303 always, and 301/302 after POST (what every browser does): GET without the body.
        if status == 303 && request.method != "HEAD" || (status == 301 || status == 302) && request.method == "POST" {
            next.method = "GET"
            next.body = nil
            for name in ["Content-Type", "Content-Length", "Content-Encoding", "Transfer-Encoding"] { next.headers.remove(name: name) }
        }
        // A body read once cannot go again: the 3xx is the answer (as Go's client does without `GetBody`).
        if let body = next.body, !body.isReplayable { return nil }
        if target.origin != request.target.origin {
            for name in ["Authorization", "Cookie", "Proxy-Authorization"] { next.headers.remove(name: name) }
        }
        let key = "\(next.method) \(target)"
        guard visited.insert(key).inserted else {
            throw HTTPClientError(.redirectLoop, "back to \(target)", url: request.target.description)
        }
        return next
    }
}
