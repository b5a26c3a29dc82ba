/// A request's HEADERS for HTTP/2, as a pure function of the request: the
/// pseudo-header fields, then the caller's fields in lower case, without the
/// ones RFC 9113 §8.2.2 forbids (they belong to HTTP/1.1's connection).
enum HTTP2RequestFields {
    /// Fields that describe an HTTP/1.1 connection, not the message: never sent over HTTP/2.
    private static let connectionSpecific: Set<String> = ["connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade", "host"]

    /// The fields of `request`: `:method`, `:scheme`, `:authority` (the
    /// caller's `Host` when it set one), `:path`, then its fields. Dropped:
    /// the connection-specific fields, those `Connection` names, `TE` other
    /// than `trailers`, and the caller's `Content-Length` (the client frames
    /// the body and states its length when known).
    ///
    /// The method, target and fields are those `HTTP1RequestSerializer.check`
    /// accepted when the request was prepared: what may be sent is decided there, once.
    static func fields(method: String, target: HTTPTarget, headers: HTTPHeaders, bodyLength: Int?,
                       acceptEncoding: String?) -> [(name: [UInt8], value: [UInt8])] {
        let path = target.pathAndQuery
        let authority = headers.first(name: "Host") ?? target.hostHeader
        var named: Set<String> = []
        for value in headers.values(name: "Connection") {
            for token in value.split(separator: ",") { named.insert(token.trimmingASCIISpaces().lowercased()) }
        }
        var fields: [(name: [UInt8], value: [UInt8])] = [
            (Names.method, method == "GET" ? Names.get : Array(method.utf8)),
            (Names.scheme, target.isSecure ? Names.https : Names.http),
            (Names.authority, Array(authority.utf8)),
            (Names.path, Array(path.utf8)),
        ]
        fields.reserveCapacity(fields.count + headers.count + 2)
        for field in headers {
            let name = field.name.lowercased()
            if connectionSpecific.contains(name) || named.contains(name) || name == "content-length" { continue }
            if name == "te", !field.value.trimmingASCIISpaces().equalsIgnoringASCIICase("trailers") { continue }
            fields.append((Array(name.utf8), Array(field.value.utf8)))
        }
        if let acceptEncoding, !headers.contains(name: "Accept-Encoding") {
            fields.append((Names.acceptEncoding, Array(acceptEncoding.utf8)))
        }
        if let bodyLength { fields.append((Names.contentLength, Array(String(bodyLength).utf8))) }
        return fields
    }

    /// Made once: every request shares them.
    private enum Names {
        static let method = Array(":method".utf8), scheme = Array(":scheme".utf8)
        static let authority = Array(":authority".utf8), path = Array(":path".utf8)
        static let get = Array("GET".utf8), https = Array("https".utf8), http = Array("http".utf8)
        static let acceptEncoding = Array("accept-encoding".utf8), contentLength = Array("content-length".utf8)
    }
}

extension StringProtocol {
    /// Without leading and trailing spaces and tabs.
    fileprivate func trimmingASCIISpaces() -> String {
        let isSpace = { (c: Character) in c == " " || c == "\t" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(self[first...last])
    }
}
