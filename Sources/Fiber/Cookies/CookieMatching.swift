import FiberRuntime

/// RFC 6265's matching rules (§5.1.2 to §5.1.4), pure functions of text.
enum CookieMatching {
    /// §5.1.2: the host as cookies compare it, in lower case without a final dot.
    static func canonicalHost(_ host: String) -> String {
        var host = host.lowercased()
        if host.hasSuffix("."), host.count > 1 { host.removeLast() }
        return host
    }

    /// Whether `host` is an IPv4 or IPv6 literal: such a host gets host-only cookies.
    static func isIPAddress(_ host: String) -> Bool {
        host.contains(":") || SocketAddress(ipLiteral: host, port: 0) != nil
    }

    /// §5.1.3: `host` is `domain`, or a host name that ends with `.` and `domain`.
    static func domainMatches(_ host: String, _ domain: String) -> Bool {
        if host == domain { return true }
        guard host.utf8.count > domain.utf8.count, host.utf8.suffix(domain.utf8.count).elementsEqual(domain.utf8),
              !isIPAddress(host) else { return false }
        let dot = host.utf8.index(host.utf8.endIndex, offsetBy: -domain.utf8.count - 1)
        return host.utf8[dot] == UInt8(ascii: ".")
    }

    /// §5.1.4: the directory of a request's path, the path a cookie without `Path` gets.
    static func defaultPath(of requestPath: String) -> String {
        guard requestPath.hasPrefix("/"), let slash = requestPath.lastIndex(of: "/"), slash != requestPath.startIndex else {
            return "/"
        }
        return String(requestPath[..<slash])
    }

    /// §5.1.4: `path` is the cookie's path, or below it.
    static func pathMatches(_ requestPath: String, _ cookiePath: String) -> Bool {
        // Byte by byte: `hasPrefix` would compare canonically equivalent characters as equal.
        guard requestPath.utf8.starts(with: cookiePath.utf8) else { return false }
        if requestPath.utf8.count == cookiePath.utf8.count || cookiePath.utf8.last == UInt8(ascii: "/") { return true }
        return requestPath.utf8[requestPath.utf8.index(requestPath.utf8.startIndex, offsetBy: cookiePath.utf8.count)]
            == UInt8(ascii: "/")
    }

    /// The path of a request target, without its query.
    static func path(of target: HTTPTarget) -> String {
        let full = target.pathAndQuery
        let path = full.firstIndex(of: "?").map { String(full[..<$0]) } ?? full
        return path.isEmpty ? "/" : path
    }
}
