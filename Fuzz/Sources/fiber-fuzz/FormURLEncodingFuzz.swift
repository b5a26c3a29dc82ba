import Fiber

/// The `application/x-www-form-urlencoded` writer, against a reader written here.
///
/// Input: names and values, cut at zero bytes. Rules: the body is ASCII of
/// the WHATWG set (letters, digits, `*-._`, `+`, `%XX`, `=`, `&`) and reads
/// back as the same items in the same order.
enum FormURLEncodingFuzz {
    static let target = FuzzTarget(name: "form-urlencoded", run: run, seeds: seeds)

    static func run(_ input: [UInt8]) {
        let strings = FuzzFields.strings(input[...])
        let items = stride(from: 0, to: strings.count - 1, by: 2).map { URLFormItem(name: strings[$0], value: strings[$0 + 1]) }
        let body = FormURLEncoding.encode(items)
        FuzzCheck.require(body.utf8.allSatisfy(isFormByte), "the body has a byte outside the form set: \(body)")
        let decoded = decode(body)
        FuzzCheck.require(decoded == items, "\(items) encoded as \(body) decodes as \(String(describing: decoded))")
    }

    static func isFormByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default:
            "*-._+%=&".utf8.contains(byte)
        }
    }

    /// The WHATWG `application/x-www-form-urlencoded` parser, strict: nil for a malformed escape.
    static func decode(_ body: String) -> [URLFormItem]? {
        if body.isEmpty { return [] }
        var items: [URLFormItem] = []
        for pair in body.utf8.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: false) {
            let halves = pair.split(separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
            guard halves.count == 2, let name = unescape(halves[0]), let value = unescape(halves[1]) else { return nil }
            items.append(URLFormItem(name: name, value: value))
        }
        return items
    }

    static func unescape(_ text: Substring.UTF8View) -> String? {
        var out: [UInt8] = []
        var bytes = Array(text)[...]
        while let byte = bytes.popFirst() {
            switch byte {
            case UInt8(ascii: "+"): out.append(0x20)
            case UInt8(ascii: "%"):
                guard bytes.count >= 2, let value = UInt8(String(decoding: bytes.prefix(2), as: UTF8.self), radix: 16) else { return nil }
                out.append(value)
                bytes = bytes.dropFirst(2)
            default: out.append(byte)
            }
        }
        return String(validating: out, as: UTF8.self)
    }

    static func seeds() -> [[UInt8]] {
        [
            FuzzFields.bytes(["name", "John Doe", "email", "j@example.com"]),
            FuzzFields.bytes(["q", "a&b=c+d%", "emoji", "😀 é", "", ""]),
            FuzzFields.bytes(["list[]", "1", "list[]", "2"]),
        ]
    }
}
