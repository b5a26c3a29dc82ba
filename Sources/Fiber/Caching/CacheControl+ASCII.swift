import FiberRuntime

extension CacheControl {
    /// The directives of an ASCII `Cache-Control` value, read over its bytes; nil when a
    /// byte is not ASCII. Splits, trims and reads numbers as `reading(_:)` does: spaces and
    /// tabs around names and values, then double quotes around a value, then `Int`'s rules.
    init?(ascii value: String) {
        var control = CacheControl()
        guard FieldList.forEachElement(of: value, { control.apply(directive: $0); return true }) != nil else { return nil }
        self = control
    }

    /// Sets what one directive, already trimmed, says.
    private mutating func apply(directive: UnsafeBufferPointer<UInt8>) {
        let equals = directive.firstIndex(of: UInt8(ascii: "="))
        let name = FieldList.trimmed(UnsafeBufferPointer(rebasing: directive[..<(equals ?? directive.endIndex)]))
        let seconds = equals.flatMap { equals in
            let value = FieldList.trimmed(UnsafeBufferPointer(rebasing: directive[(equals + 1)...]))
            return Self.integer(Self.unquoted(value))
        }
        set(seconds: seconds) { FieldList.element(name, is: $0) }
    }

    /// `bytes` without the double quotes around them (all of them, as `reading(_:)` trims).
    private static func unquoted(_ bytes: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        var (first, last) = (0, bytes.count)
        while first < last, bytes[first] == UInt8(ascii: "\"") { first += 1 }
        while last > first, bytes[last - 1] == UInt8(ascii: "\"") { last -= 1 }
        return UnsafeBufferPointer(rebasing: bytes[first..<last])
    }

    /// The decimal integer `bytes` spell, with an optional sign, as `Int(_:)` reads it (nil on overflow).
    private static func integer(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        var digits = bytes[...]
        let negative = digits.first == UInt8(ascii: "-")
        if negative || digits.first == UInt8(ascii: "+") { digits = digits.dropFirst() }
        guard !digits.isEmpty else { return nil }
        var value = 0
        for byte in digits {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            let digit = Int(byte - UInt8(ascii: "0"))
            let (times10, overflowed) = value.multipliedReportingOverflow(by: 10)
            let (next, overflowedAgain) = negative ? times10.subtractingReportingOverflow(digit)
                                                   : times10.addingReportingOverflow(digit)
            guard !overflowed, !overflowedAgain else { return nil }
            value = next
        }
        return value
    }
}
