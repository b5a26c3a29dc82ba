extension HTTPTarget {
    /// Parses the common shape of a request URL, `http(s)://host[:port][/path][?query]`
    /// (or `ws(s)://…` for `.webSocket`) written in plain ASCII, without
    /// Foundation's `URL` (which costs more than the rest of a keep-alive
    /// request's client-side work).
    ///
    /// Returns nil for anything outside that shape (upper case in scheme or
    /// host, IPv6 literals, user info, fragments, characters that need
    /// percent-encoding, a malformed escape, an empty or out-of-range port):
    /// the caller then parses it with `URL`, so both paths agree by construction
    /// on every URL this one accepts (a test compares them).
    package static func parsePlain(_ url: String, schemes: Schemes = .http) -> HTTPTarget? {
        var url = url
        return url.withUTF8 { bytes -> HTTPTarget? in
            var i: Int
            let scheme: String
            let isSecure: Bool
            switch schemes {
            case .http:
                if bytes.starts(with: "http://".utf8) {
                    scheme = "http"; isSecure = false; i = 7
                } else if bytes.starts(with: "https://".utf8) {
                    scheme = "https"; isSecure = true; i = 8
                } else {
                    return nil
                }
            case .webSocket:
                if bytes.starts(with: "ws://".utf8) {
                    scheme = "ws"; isSecure = false; i = 5
                } else if bytes.starts(with: "wss://".utf8) {
                    scheme = "wss"; isSecure = true; i = 6
                } else {
                    return nil
                }
            }
            let hostStart = i
            while i < bytes.count, isHostByte(bytes[i]) { i += 1 }
            guard i > hostStart else { return nil }
            let host = String(decoding: UnsafeBufferPointer(rebasing: bytes[hostStart..<i]), as: UTF8.self)
            var port = isSecure ? 443 : 80
            if i < bytes.count, bytes[i] == UInt8(ascii: ":") {
                i += 1
                var value = 0
                let digitsStart = i
                while i < bytes.count, i - digitsStart < 5, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[i]) {
                    value = value * 10 + Int(bytes[i] - UInt8(ascii: "0"))
                    i += 1
                }
                guard i > digitsStart, (1...65535).contains(value) else { return nil }
                port = value
            }
            guard i == bytes.count || bytes[i] == UInt8(ascii: "/") || bytes[i] == UInt8(ascii: "?") else { return nil }
            let targetStart = i
            while i < bytes.count {
                let byte = bytes[i]
                if byte == UInt8(ascii: "%") {
                    guard i + 2 < bytes.count, isHexDigit(bytes[i + 1]), isHexDigit(bytes[i + 2]) else { return nil }
                    i += 3
                    continue
                }
                guard isTargetByte(byte) else { return nil }
                i += 1
            }
            var target = String(decoding: UnsafeBufferPointer(rebasing: bytes[targetStart...]), as: UTF8.self)
            if target.isEmpty || target.utf8.first == UInt8(ascii: "?") { target = "/" + target }
            return HTTPTarget(scheme: scheme, host: host, port: port, pathAndQuery: target)
        }
    }

    /// Lower-case letters, digits, `.` and `-`: a registered name `URL` leaves as it is.
    private static func isHostByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "-"): true
        default: false
        }
    }

    /// RFC 3986's unreserved and sub-delimiter characters, plus `:`, `@`, `/` and `?`.
    private static func isTargetByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"),
             UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "("), UInt8(ascii: ")"),
             UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: "="),
             UInt8(ascii: ":"), UInt8(ascii: "@"), UInt8(ascii: "/"), UInt8(ascii: "?"):
            true
        default:
            false
        }
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"), UInt8(ascii: "A")...UInt8(ascii: "F"): true
        default: false
        }
    }
}
