/// Indents JSON text for people, keeping its key order and its numbers as
/// written, with ANSI colours on a terminal (keys, strings, numbers,
/// literals). Text that is not valid JSON gives nil, so the caller prints it
/// as it came.
public struct JSONPrettyPrinter: Sendable {
    /// ANSI colours.
    public var colors: Bool
    /// Spaces per level.
    public var indent = 2

    /// A printer, with colours or without.
    public init(colors: Bool) { self.colors = colors }

    private enum Style: String {
        case key = "\u{1B}[34;1m", string = "\u{1B}[32m", number = "\u{1B}[36m", literal = "\u{1B}[35m"
    }

    /// The indented text, or nil when `json` is not one valid JSON value.
    public func format(_ json: String) -> String? {
        var reader = Reader(Array(json.utf8))
        var out = ""
        guard value(&reader, &out, depth: 0) else { return nil }
        reader.skipSpace()
        return reader.atEnd ? out : nil
    }

    private func paint(_ text: String, _ style: Style) -> String {
        colors ? style.rawValue + text + "\u{1B}[0m" : text
    }

    private func newline(_ depth: Int) -> String { "\n" + String(repeating: " ", count: depth * indent) }

    private func value(_ r: inout Reader, _ out: inout String, depth: Int) -> Bool {
        r.skipSpace()
        guard depth < 512, let c = r.peek else { return false }
        switch c {
        case UInt8(ascii: "{"):
            r.advance()
            r.skipSpace()
            if r.peek == UInt8(ascii: "}") { r.advance(); out += "{}"; return true }
            out += "{"
            while true {
                r.skipSpace()
                guard let key = r.string() else { return false }
                out += newline(depth + 1) + paint(key, .key) + ": "
                r.skipSpace()
                guard r.peek == UInt8(ascii: ":") else { return false }
                r.advance()
                guard value(&r, &out, depth: depth + 1) else { return false }
                r.skipSpace()
                if r.peek == UInt8(ascii: ",") { r.advance(); out += ","; continue }
                guard r.peek == UInt8(ascii: "}") else { return false }
                r.advance()
                out += newline(depth) + "}"
                return true
            }
        case UInt8(ascii: "["):
            r.advance()
            r.skipSpace()
            if r.peek == UInt8(ascii: "]") { r.advance(); out += "[]"; return true }
            out += "["
            while true {
                out += newline(depth + 1)
                guard value(&r, &out, depth: depth + 1) else { return false }
                r.skipSpace()
                if r.peek == UInt8(ascii: ",") { r.advance(); out += ","; continue }
                guard r.peek == UInt8(ascii: "]") else { return false }
                r.advance()
                out += newline(depth) + "]"
                return true
            }
        case UInt8(ascii: "\""):
            guard let text = r.string() else { return false }
            out += paint(text, .string)
            return true
        default:
            for literal in ["true", "false", "null"] where r.take(literal) {
                out += paint(literal, .literal)
                return true
            }
            guard let number = r.number() else { return false }
            out += paint(number, .number)
            return true
        }
    }

    private struct Reader {
        let bytes: [UInt8]
        var index = 0
        init(_ bytes: [UInt8]) { self.bytes = bytes }

        var atEnd: Bool { index >= bytes.count }
        var peek: UInt8? { index < bytes.count ? bytes[index] : nil }
        mutating func advance() { index += 1 }
        mutating func skipSpace() {
            while let c = peek, c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 { index += 1 }
        }
        mutating func take(_ word: String) -> Bool {
            let w = Array(word.utf8)
            guard index + w.count <= bytes.count, Array(bytes[index..<(index + w.count)]) == w else { return false }
            index += w.count
            return true
        }
        /// A string literal, returned as written (quotes and escapes kept).
        mutating func string() -> String? {
            guard peek == UInt8(ascii: "\"") else { return nil }
            let start = index
            index += 1
            while let c = peek {
                index += 1
                if c == UInt8(ascii: "\\") {
                    guard peek != nil else { return nil }
                    index += 1
                } else if c == UInt8(ascii: "\"") {
                    return String(decoding: bytes[start..<index], as: UTF8.self)
                } else if c < 0x20 {
                    return nil
                }
            }
            return nil
        }
        /// A number, returned as written.
        mutating func number() -> String? {
            let start = index
            let allowed = Set("+-0123456789.eE".utf8)
            while let c = peek, allowed.contains(c) { index += 1 }
            guard index > start else { return nil }
            let text = String(decoding: bytes[start..<index], as: UTF8.self)
            return Double(text) != nil ? text : nil
        }
    }
}
