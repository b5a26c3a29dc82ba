/// Writes a request head as HTTP/1.1 bytes and frames its body: a pure
/// function of the request, so that tests can read exactly what is sent.
///
/// The one writer of request heads: HTTP requests and the WebSocket opening
/// handshake both go through it, so one set of rules decides what may be
/// sent (no control byte but a tab in a value, names that are tokens, no
/// control byte or space in the request target).
package enum HTTP1RequestSerializer {
    /// How the body follows the head.
    package enum Framing: Equatable { case none, contentLength(Int), chunked }

    /// The head's bytes (request line, headers, blank line) and the body framing.
    ///
    /// - Throws: `HTTPClientError` `.invalidHeader` for a header that may not be
    ///   sent (a control byte other than a tab in a value, a name that is not a token, or an
    ///   invalid method), `.invalidURL` for a target with a control byte or space,
    ///   before any byte leaves.
    static func head(
        method: String, target: HTTPTarget, headers: HTTPHeaders, bodyLength: Int?, hasBody: Bool,
        acceptEncoding: String? = nil
    ) throws(HTTPClientError) -> (bytes: [UInt8], framing: Framing) {
        try head(method: method, requestTarget: target.pathAndQuery, host: target.hostHeader, headers: headers,
                 bodyLength: bodyLength, hasBody: hasBody, acceptEncoding: acceptEncoding)
    }

    /// The head's bytes for `requestTarget` (path and query) on `host` (the
    /// `Host` value, made only when `headers` has none), and the body framing:
    /// `check`, then `CheckedHead.bytes()`.
    ///
    /// - Throws: as `check`.
    package static func head(
        method: String, requestTarget: String, host: @autoclosure () -> String, headers: HTTPHeaders,
        bodyLength: Int?, hasBody: Bool, acceptEncoding: String? = nil
    ) throws(HTTPClientError) -> (bytes: [UInt8], framing: Framing) {
        let checked = try check(method: method, requestTarget: requestTarget, host: host(), headers: headers,
                                bodyLength: bodyLength, hasBody: hasBody, acceptEncoding: acceptEncoding)
        return (checked.bytes(), checked.framing)
    }

    /// Checks a request head against the rules of what may be sent, and decides
    /// its body framing: the one check, whichever version then carries the
    /// request (HTTP/2 frames the same fields itself). The caller's
    /// `Content-Length` and `Transfer-Encoding` are dropped from what is written:
    /// the framing comes from `bodyLength` and `hasBody`.
    ///
    /// - Throws: `HTTPClientError` `.invalidHeader` for a field or method that
    ///   may not be sent (a control byte other than a tab in a value, a name that
    ///   is not a token, an invalid method) or a `Host` value with a control byte,
    ///   `.invalidURL` for an empty target or one with a control byte or space.
    static func check(
        method: String, requestTarget: String, host: @autoclosure () -> String, headers: HTTPHeaders,
        bodyLength: Int?, hasBody: Bool, acceptEncoding: String? = nil
    ) throws(HTTPClientError) -> CheckedHead {
        guard HTTPHeaders.isToken(method) else { throw HTTPClientError(.invalidHeader, "invalid method \(escape(method))") }
        guard isValidRequestTarget(requestTarget) else {
            throw HTTPClientError(.invalidURL, "the request target \(escape(requestTarget)) has a control byte or space")
        }
        if let bad = headers.firstInvalidField() {
            throw HTTPClientError(.invalidHeader, "header \(escape(bad.name)) has a control byte in its value or is not a token")
        }
        let hostValue = headers.contains(name: "Host") ? nil : host()
        if let hostValue, !HTTPHeaders.isValidValue(hostValue) {
            throw HTTPClientError(.invalidHeader, "host \(escape(hostValue)) has a control byte")
        }
        let framing: Framing
        if !hasBody {
            switch method {
            case "POST", "PUT", "PATCH": framing = .contentLength(0)
            default: framing = .none
            }
        } else if let length = bodyLength {
            framing = .contentLength(length)
        } else {
            framing = .chunked
        }
        return CheckedHead(method: method, requestTarget: requestTarget, hostValue: hostValue, headers: headers,
                           acceptEncoding: acceptEncoding, framing: framing)
    }

    /// A request head that passed `check`: written as HTTP/1.1 bytes only when it
    /// goes over HTTP/1.1, so that a request carried by HTTP/2 never pays for them.
    struct CheckedHead: Sendable {
        let method: String
        let requestTarget: String
        /// The `Host` value the client adds; nil when the caller's fields have one.
        let hostValue: String?
        let headers: HTTPHeaders
        let acceptEncoding: String?
        let framing: Framing

        /// The request line, the fields and the blank line.
        func bytes() -> [UInt8] {
            var out: [UInt8] = []
            // Room for the whole head, so that it is allocated once: the fields, plus
            // the request line, Host, Accept-Encoding and framing (under 160 bytes).
            out.reserveCapacity(headers.reduce(160 + method.utf8.count + requestTarget.utf8.count + (hostValue?.utf8.count ?? 0)) {
                $0 + $1.name.utf8.count + $1.value.utf8.count + 4
            })
            out += method.utf8
            out.append(0x20)
            out += requestTarget.utf8
            out += " HTTP/1.1\r\n".utf8
            if let hostValue { HTTP1RequestSerializer.append("Host", hostValue, to: &out) }
            for field in headers {
                // The client owns the body's framing; what the caller wrote would contradict it.
                if field.name.equalsIgnoringASCIICase("Content-Length") || field.name.equalsIgnoringASCIICase("Transfer-Encoding") {
                    continue
                }
                HTTP1RequestSerializer.append(field.name, field.value, to: &out)
            }
            if let acceptEncoding, !headers.contains(name: "Accept-Encoding") { HTTP1RequestSerializer.append("Accept-Encoding", acceptEncoding, to: &out) }
            switch framing {
            case .none: break
            case .contentLength(let n): HTTP1RequestSerializer.append("Content-Length", String(n), to: &out)
            case .chunked: HTTP1RequestSerializer.append("Transfer-Encoding", "chunked", to: &out)
            }
            out += "\r\n".utf8
            return out
        }
    }

    /// A chunk of a chunked body: size in hex, CRLF, data, CRLF.
    static func chunk(_ data: [UInt8]) -> [[UInt8]] {
        [Array((String(data.count, radix: 16) + "\r\n").utf8), data, crlf]
    }

    /// The last chunk of a chunked body (no trailers).
    static let lastChunk: [UInt8] = Array("0\r\n\r\n".utf8)
    static let crlf: [UInt8] = [0x0D, 0x0A]

    fileprivate static func append(_ name: String, _ value: String, to out: inout [UInt8]) {
        out += name.utf8
        out += ": ".utf8
        out += value.utf8
        out += "\r\n".utf8
    }

    /// Not empty, and no control byte or space: either would end the request
    /// line early and let the rest pass for fields. Over contiguous bytes, as
    /// the header rules are, since every request's target is checked.
    private static func isValidRequestTarget(_ target: String) -> Bool {
        let allowed = { (byte: UInt8) in byte > 0x20 && byte != 0x7F }
        return !target.isEmpty
            && (target.utf8.withContiguousStorageIfAvailable { $0.allSatisfy(allowed) } ?? target.utf8.allSatisfy(allowed))
    }

    private static func escape(_ text: String) -> String {
        String(text.unicodeScalars.map { $0.value < 0x20 ? "\\u{\(String($0.value, radix: 16))}" : String($0) }.joined())
    }
}
