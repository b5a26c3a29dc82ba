/// Percent-encoding (RFC 3986 §2.1) of URL parts the runtime writes or reads
/// itself: the socket path in the host of an `http+unix` URL.
package enum PercentEncoding {
    /// `bytes` with each `%XX` decoded, or nil for a bad escape or bytes that are not UTF-8.
    static func decoded(_ bytes: Substring.UTF8View.SubSequence) -> String? {
        var out: [UInt8] = []
        var i = bytes.startIndex
        while i < bytes.endIndex {
            let byte = bytes[i]
            if byte == UInt8(ascii: "%") {
                let high = bytes.index(after: i)
                guard high < bytes.endIndex, bytes.index(after: high) < bytes.endIndex,
                      let h = hexValue(bytes[high]), let l = hexValue(bytes[bytes.index(after: high)]) else { return nil }
                out.append(h << 4 | l)
                i = bytes.index(i, offsetBy: 3)
            } else {
                out.append(byte)
                i = bytes.index(after: i)
            }
        }
        return String(validating: out, as: UTF8.self)
    }

    /// The value of a hex digit, either case.
    package static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// `text` with every byte but RFC 3986's unreserved ones percent-encoded (upper-case hex).
    static func encoded(_ text: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.append(byte)
            default:
                out += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
