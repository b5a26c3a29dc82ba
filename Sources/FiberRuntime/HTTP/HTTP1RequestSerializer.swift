/// Writes a request head as HTTP/1.1 bytes and frames its body: a pure
/// function of the request, so that tests can read exactly what is sent.
enum HTTP1RequestSerializer {
    /// How the body follows the head.
    enum Framing: Equatable { case none, contentLength(Int), chunked }

    /// The head's bytes (request line, headers, blank line) and the body framing.
    ///
    /// - Throws: `HTTPClientError` `.invalidHeader` for a header that may not be
    ///   sent (a control byte other than a tab in a value, a name that is not a token, or an
    ///   invalid method), before any byte leaves.
    static func head(
        method: String, target: HTTPTarget, headers: HTTPHeaders, bodyLength: Int?, hasBody: Bool,
        acceptEncoding: String? = nil
    ) throws(HTTPClientError) -> (bytes: [UInt8], framing: Framing) {
        guard HTTPHeaders.isToken(method) else { throw HTTPClientError(.invalidHeader, "invalid method \(method)") }
        if let bad = headers.firstInvalidField() {
            throw HTTPClientError(.invalidHeader, "header \(escape(bad.name)) has a control byte in its value or is not a token")
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
        var out: [UInt8] = []
        // Room for the whole head, so that it is allocated once: the fields, plus
        // the request line, Host, Accept-Encoding and framing (under 160 bytes).
        out.reserveCapacity(headers.reduce(160 + method.utf8.count + target.pathAndQuery.utf8.count + target.host.utf8.count) {
            $0 + $1.name.utf8.count + $1.value.utf8.count + 4
        })
        out += method.utf8
        out.append(0x20)
        out += target.pathAndQuery.utf8
        out += " HTTP/1.1\r\n".utf8
        if !headers.contains(name: "Host") { append("Host", target.hostHeader, to: &out) }
        for field in headers {
            // The client owns the body's framing; what the caller wrote would contradict it.
            if field.name.equalsIgnoringASCIICase("Content-Length") || field.name.equalsIgnoringASCIICase("Transfer-Encoding") {
                continue
            }
            append(field.name, field.value, to: &out)
        }
        if let acceptEncoding, !headers.contains(name: "Accept-Encoding") { append("Accept-Encoding", acceptEncoding, to: &out) }
        switch framing {
        case .none: break
        case .contentLength(let n): append("Content-Length", String(n), to: &out)
        case .chunked: append("Transfer-Encoding", "chunked", to: &out)
        }
        out += "\r\n".utf8
        return (out, framing)
    }

    /// A chunk of a chunked body: size in hex, CRLF, data, CRLF.
    static func chunk(_ data: [UInt8]) -> [[UInt8]] {
        [Array((String(data.count, radix: 16) + "\r\n").utf8), data, crlf]
    }

    /// The last chunk of a chunked body (no trailers).
    static let lastChunk: [UInt8] = Array("0\r\n\r\n".utf8)
    static let crlf: [UInt8] = [0x0D, 0x0A]

    private static func append(_ name: String, _ value: String, to out: inout [UInt8]) {
        out += name.utf8
        out += ": ".utf8
        out += value.utf8
        out += "\r\n".utf8
    }

    private static func escape(_ text: String) -> String {
        String(text.unicodeScalars.map { $0.value < 0x20 ? "\\u{\(String($0.value, radix: 16))}" : String($0) }.joined())
    }
}
