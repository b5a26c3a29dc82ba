/// The client's side of an HTTP `CONNECT` (RFC 9110 §9.3.6): the request's
/// bytes, then the proxy's answer read as it arrives. Pure: the tunnel's
/// shell writes and reads, this decides.
///
/// A 2xx opens the tunnel; 1xx heads are skipped; 407 (or 401) asks for credentials;
/// anything else refuses. The tunnel must be silent until the client speaks
/// (TLS and HTTP both start with the client), so bytes after the 2xx head are refused.
struct HTTPConnectHandshake {
    /// What the answer so far means.
    enum Outcome: Equatable {
        case needMore
        case established
        case failed(ProxyFailure.Reason, status: Int?, detail: String)
    }

    /// A head longer than this is refused.
    static let maxHeadBytes = 16 * 1024

    private var buffer: [UInt8] = []

    /// `CONNECT host:port HTTP/1.1`, `Host`, and `Proxy-Authorization` when there are credentials.
    static func request(host: String, port: Int, credentials: ProxyCredentials?) -> [UInt8] {
        let authority = ProxyServer.authority(host: host, port: port)
        var text = "CONNECT \(authority) HTTP/1.1\r\nHost: \(authority)\r\n"
        if let credentials { text += "Proxy-Authorization: \(credentials.basicAuthorization)\r\n" }
        return Array((text + "\r\n").utf8)
    }

    /// Takes the next bytes of the proxy's answer.
    mutating func received(_ bytes: some Collection<UInt8>) -> Outcome {
        buffer += bytes
        while let end = headEnd() {
            let head = buffer[..<end.start]
            let rest = buffer[end.after...]
            guard let (status, reason) = Self.statusLine(of: head) else {
                return .failed(.malformedReply, status: nil, detail: "not an HTTP status line")
            }
            switch status {
            case 100..<200:
                buffer = Array(rest)
                continue
            case 200..<300:
                return rest.isEmpty ? .established
                    : .failed(.malformedReply, status: status, detail: "bytes followed the \(status) before the client spoke")
            // 401 too: the origin is not reached yet, so only the proxy can have said it (tinyproxy
            // answers wrong credentials so).
            case 401, 407:
                return .failed(.authenticationRequired, status: status, detail: "\(status) \(reason)")
            default:
                return .failed(.refused, status: status, detail: "\(status) \(reason)")
            }
        }
        if buffer.count > Self.maxHeadBytes {
            return .failed(.malformedReply, status: nil, detail: "a head longer than \(Self.maxHeadBytes) bytes")
        }
        return .needMore
    }

    /// The proxy closed the connection (or the stream ended) before a head was read.
    func closed() -> Outcome {
        .failed(.closed, status: nil, detail: buffer.isEmpty ? "before answering CONNECT" : "in the middle of its answer")
    }

    /// Where the first head ends: a blank line (CRLF CRLF, or LF LF as lenient parsers accept).
    private func headEnd() -> (start: Int, after: Int)? {
        var i = 0
        while i + 1 < buffer.count {
            if buffer[i] == 0x0A {
                if buffer[i + 1] == 0x0A { return (i, i + 2) }
                if buffer[i + 1] == 0x0D, i + 2 < buffer.count, buffer[i + 2] == 0x0A { return (i, i + 3) }
            }
            i += 1
        }
        return nil
    }

    /// `HTTP/1.x SSS reason` → status and reason (control bytes removed).
    private static func statusLine(of head: ArraySlice<UInt8>) -> (Int, String)? {
        let line = head.prefix { $0 != 0x0D && $0 != 0x0A }
        let prefix = Array("HTTP/1.".utf8)
        guard line.count >= 12, Array(line.prefix(7)) == prefix else { return nil }
        let bytes = Array(line)
        guard (0x30...0x39).contains(bytes[7]), bytes[8] == 0x20,
              bytes[9...11].allSatisfy({ (0x30...0x39).contains($0) }), bytes.count == 12 || bytes[12] == 0x20 else { return nil }
        let status = bytes[9...11].reduce(0) { $0 * 10 + Int($1 - 0x30) }
        let reason = String(decoding: bytes.dropFirst(13).filter { $0 >= 0x20 && $0 != 0x7F }.prefix(120), as: UTF8.self)
        return (status, reason)
    }
}
