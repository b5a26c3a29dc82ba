import Foundation

/// Trimming of header field text, as Foundation's `trimmingCharacters(in:)` does it
/// but without its cost where it is not needed: ASCII text (every header value in
/// practice) is sliced in place, without bridging or allocating; other text still
/// goes through Foundation, so the result is the same for every input.
enum FieldText {
    private static let quote = CharacterSet(charactersIn: "\"")

    /// `text` without leading and trailing `.whitespaces` (in ASCII: spaces and tabs).
    static func trimmingWhitespace(_ text: Substring) -> Substring {
        trimming(text, ascii: { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }, else: .whitespaces)
    }

    /// `text` without leading and trailing double quotes.
    static func trimmingQuotes(_ text: Substring) -> Substring {
        trimming(text, ascii: { $0 == UInt8(ascii: "\"") }, else: quote)
    }

    private static func trimming(_ text: Substring, ascii isTrimmed: (UInt8) -> Bool, else set: CharacterSet) -> Substring {
        let bytes = text.utf8
        guard bytes.allSatisfy({ $0 < 0x80 }) else { return Substring(text.trimmingCharacters(in: set)) }
        let start = bytes.firstIndex { !isTrimmed($0) } ?? bytes.endIndex
        let end = bytes.lastIndex { !isTrimmed($0) }.map { bytes.index(after: $0) } ?? start
        return text[start..<max(start, end)]
    }
}
