/// Validates UTF-8 incrementally, across fragment boundaries, so that a text
/// message fails (1007) at the first bad byte instead of after it is whole.
///
/// Follows RFC 3629's table: no overlong forms, no surrogates, nothing past U+10FFFF.
public struct UTF8Validator: Sendable, Hashable {
    private var needed: UInt8 = 0
    private var lower: UInt8 = 0x80
    private var upper: UInt8 = 0xBF

    public init() {}

    /// True when no code point is cut in the middle (the message may end here).
    public var isComplete: Bool { needed == 0 }

    /// Feeds more bytes; false at the first byte that cannot be valid UTF-8.
    public mutating func validate<C: Collection<UInt8>>(_ bytes: C) -> Bool {
        for byte in bytes {
            if needed == 0 {
                if byte < 0x80 { continue }
                switch byte {
                case 0xC2...0xDF: needed = 1
                case 0xE0: needed = 2; lower = 0xA0
                case 0xE1...0xEC, 0xEE...0xEF: needed = 2
                case 0xED: needed = 2; upper = 0x9F
                case 0xF0: needed = 3; lower = 0x90
                case 0xF1...0xF3: needed = 3
                case 0xF4: needed = 3; upper = 0x8F
                default: return false
                }
            } else {
                guard byte >= lower, byte <= upper else { return false }
                lower = 0x80
                upper = 0xBF
                needed -= 1
            }
        }
        return true
    }

    /// Validates a whole buffer at once.
    public static func isValid<C: Collection<UInt8>>(_ bytes: C) -> Bool {
        var v = UTF8Validator()
        return v.validate(bytes) && v.isComplete
    }
}
