@testable import FiberRuntime

/// The URL reader behind every request target (`HTTPTarget`), HTTP and WebSocket.
///
/// Input: one options byte (bit 0: WebSocket schemes), then the URL.
///
/// Rules: the plain fast path agrees with Foundation's `URL` whenever it
/// answers; a target read has a host and a target that can go on a request
/// line and in `Host` as they are (no control bytes, spaces or line breaks),
/// a port in range, and its URL (`description`) reads as the same target
/// when its host is made of RFC 3986's characters.
enum HTTPTargetFuzz {
    static let target = FuzzTarget(name: "http-target", run: run, seeds: seeds)

    static func run(_ input: [UInt8]) {
        guard let first = input.first else { return }
        let schemes: HTTPTarget.Schemes = first & 1 == 0 ? .http : .webSocket
        let url = String(decoding: input.dropFirst(), as: UTF8.self)
        if let plain = HTTPTarget.parsePlain(url, schemes: schemes) {
            let general = try? HTTPTarget.parseWithURL(url, schemes: schemes)
            FuzzCheck.require(plain == general, "\(url): plain \(plain), URL \(String(describing: general))")
        }
        guard let target = try? HTTPTarget(url, schemes: schemes) else { return }
        FuzzCheck.require((1...65535).contains(target.port), "\(url): port \(target.port)")
        FuzzCheck.require(!target.host.isEmpty && target.host.utf8.allSatisfy(isHostHeaderByte), "\(url): host \(target.host.debugDescription)")
        FuzzCheck.require(target.pathAndQuery.utf8.first == UInt8(ascii: "/") && target.pathAndQuery.utf8.allSatisfy { $0 > 0x20 && $0 != 0x7F },
                          "\(url): target \(target.pathAndQuery.debugDescription)")
        // Foundation decodes escapes in a host; written back as they are, only a name of RFC 3986's characters reads the same.
        guard target.host.utf8.allSatisfy(isRegisteredNameByte) else { return }
        let again = try? HTTPTarget(target.description, schemes: schemes)
        FuzzCheck.require(again == target, "\(url) read as \(target); \(target.description) reads as \(String(describing: again))")
    }

    /// A byte that may stand in a `Host` field as it is: no control byte, space, or delimiter of the URL.
    static func isHostHeaderByte(_ byte: UInt8) -> Bool {
        byte > 0x20 && byte != 0x7F && !"/?#@[]\\\"<>".utf8.contains(byte)
    }

    /// RFC 3986's unreserved and sub-delims characters, and `:` of an IPv6 literal.
    static func isRegisteredNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        default: "-._~!$&'()*+,;=:".utf8.contains(byte)
        }
    }

    static func seeds() -> [[UInt8]] {
        let urls: [(UInt8, String)] = [
            (0, "http://example.com"), (0, "https://example.com:8443/a/b?c=d&e"), (0, "http://127.0.0.1:8080/%7Euser"),
            (0, "http://[::1]:9000/path"), (0, "HTTP://Example.COM/Ä?q=ü"), (0, "https://user:pass@host/"),
            (0, "http://host/#fragment"), (0, "http://host:0/"), (0, "http://host:65536/"), (0, "http://xn--nxasmq6b.com/"),
            (1, "ws://localhost:1234/chat"), (1, "wss://example.com/socket?token=abc"), (1, "ws://host/#no"),
            (0, "http://a%20b/"), (0, "http://host/a b"),
        ]
        return urls.map { [$0.0] + Array($0.1.utf8) }
    }
}
