/// A request's HEADERS for HTTP/2, as a pure function of the request: the
/// pseudo-header fields, then the caller's fields in lower case, without the
/// ones RFC 9113 §8.2.2 forbids (they belong to HTTP/1.1's connection).
enum HTTP2RequestFields {
    /// Fields that describe an HTTP/1.1 connection, not the message: never sent over HTTP/2.
    private static let connectionSpecific = ["connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade", "host",
                                             "content-length"]

    /// The fields of `request`: `:method`, `:scheme`, `:authority` (the
    /// caller's `Host` when it set one), `:path`, then its fields. Dropped:
    /// the connection-specific fields, those `Connection` names, `TE` other
    /// than `trailers`, and the caller's `Content-Length` (the client frames
    /// the body and states its length when known).
    ///
    /// The method, target and fields are those `HTTP1RequestSerializer.check`
    /// accepted when the request was prepared: what may be sent is decided there, once.
    static func fields(method: String, target: HTTPTarget, headers: HTTPHeaders, bodyLength: Int?,
                       acceptEncoding: String?) -> HTTP2FieldBlock {
        let path = target.pathAndQuery
        let authority = headers.first(name: "Host") ?? target.hostHeader
        var named: [String] = []
        for value in headers.values(name: "Connection") {
            for token in value.split(separator: ",") { named.append(token.trimmingASCIISpaces()) }
        }
        let length = bodyLength.map { String($0) }
        let bytes = headers.reduce(64 + method.utf8.count + authority.utf8.count + path.utf8.count) {
            $0 + $1.name.utf8.count + $1.value.utf8.count + 2
        } + (acceptEncoding.map { $0.utf8.count + 17 } ?? 0) + (length.map { $0.utf8.count + 16 } ?? 0)
        var block = HTTP2FieldBlock(byteCapacity: bytes, fieldCapacity: headers.count + 6)
        block.append(name: ":method".utf8, value: method.utf8)
        block.append(name: ":scheme".utf8, value: (target.isSecure ? "https" : "http").utf8)
        block.append(name: ":authority".utf8, value: authority.utf8)
        block.append(name: ":path".utf8, value: path.utf8)
        for field in headers {
            let name = field.name
            if connectionSpecific.contains(where: { name.equalsIgnoringASCIICase($0) })
                || named.contains(where: { name.equalsIgnoringASCIICase($0) }) {
                continue
            }
            if name.equalsIgnoringASCIICase("te"), !field.value.trimmingASCIISpaces().equalsIgnoringASCIICase("trailers") { continue }
            block.append(lowercasing: name, value: field.value)
        }
        if let acceptEncoding, !headers.contains(name: "Accept-Encoding") {
            block.append(name: "accept-encoding".utf8, value: acceptEncoding.utf8)
        }
        if let length { block.append(name: "content-length".utf8, value: length.utf8) }
        return block
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
