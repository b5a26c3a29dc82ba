/// Which trailer fields (the fields after a chunked HTTP/1.1 body or in an
/// HTTP/2 stream's last HEADERS) a response keeps.
///
/// RFC 9110 §6.5.1 lets a recipient discard what a trailer may not carry: a
/// field whose meaning is needed before the content, which a trailer comes too
/// late to give. Those are dropped, one by one, and the rest of the response
/// stands: framing (`Content-Length`, `Transfer-Encoding`, `Trailer`, `TE`),
/// routing and connection management (`Host`, `Connection`, `Keep-Alive`,
/// `Proxy-Connection`, `Upgrade`), the content's format (`Content-Type`,
/// `Content-Encoding`, `Content-Range`), authentication, response controls
/// (`Cache-Control`, `Expires`, `Age`, `Vary`, `Location`, `Retry-After`,
/// `Set-Cookie`) and request modifiers. HTTP/2's pseudo-fields never reach here.
package enum TrailerFields {
    /// Lowercased names a trailer may not carry.
    static let forbidden: Set<String> = [
        "content-length", "transfer-encoding", "trailer", "te",
        "host", "connection", "keep-alive", "proxy-connection", "upgrade",
        "content-type", "content-encoding", "content-range",
        "authorization", "proxy-authorization", "www-authenticate", "proxy-authenticate",
        "cache-control", "expires", "age", "vary", "location", "retry-after", "set-cookie",
        "expect", "max-forwards", "range",
    ]

    /// Whether a trailer may carry a field named `name` (in any case).
    package static func isAllowed(_ name: String) -> Bool {
        !forbidden.contains(name.lowercased())
    }

    /// `fields` without the forbidden ones; nil when nothing is left.
    package static func kept(_ fields: HTTPHeaders) -> HTTPHeaders? {
        guard !fields.isEmpty else { return nil }
        var kept = HTTPHeaders()
        for field in fields where isAllowed(field.name) { kept.append(name: field.name, value: field.value) }
        return kept.isEmpty ? nil : kept
    }
}
