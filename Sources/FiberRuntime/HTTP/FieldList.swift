/// Comma-separated header values (`keep-alive, Upgrade`, `max-age=60, private`, `Accept,
/// Origin`) read over their bytes. Every value servers send is ASCII; splitting and trimming
/// it as a `String` walked grapheme clusters, ten times the work, on every response.
package enum FieldList {
    /// Calls `body` with each element of `value` (the bytes between commas, without the
    /// spaces and tabs around them; empty ones included, but for nothing at all after a
    /// final comma) until it returns false. Returns whether every call returned true, or nil, without calling
    /// `body`, when `value` is not ASCII: the caller then reads it as text, as before.
    @inlinable
    package static func forEachElement(of value: String, _ body: (UnsafeBufferPointer<UInt8>) -> Bool) -> Bool? {
        value.utf8.withContiguousStorageIfAvailable { bytes -> Bool? in
            guard bytes.allSatisfy({ $0 < 0x80 }) else { return nil }
            var start = 0
            while start < bytes.count {
                var end = start
                while end < bytes.count, bytes[end] != UInt8(ascii: ",") { end += 1 }
                guard body(trimmed(UnsafeBufferPointer(rebasing: bytes[start..<end]))) else { return false }
                start = end + 1
            }
            return true
        } ?? nil
    }

    /// `bytes` without the spaces and tabs around them.
    @inlinable
    package static func trimmed(_ bytes: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        var (first, last) = (0, bytes.count)
        while first < last, isSpaceOrTab(bytes[first]) { first += 1 }
        while last > first, isSpaceOrTab(bytes[last - 1]) { last -= 1 }
        return UnsafeBufferPointer(rebasing: bytes[first..<last])
    }

    /// Whether `element` is `token`, ASCII letters compared in either case.
    @inlinable
    package static func element(_ element: UnsafeBufferPointer<UInt8>, is token: String) -> Bool {
        token.utf8.count == element.count && zip(token.utf8, element).allSatisfy { sameNameByte($0, $1) }
    }

    @inlinable
    static func isSpaceOrTab(_ byte: UInt8) -> Bool { byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
}
