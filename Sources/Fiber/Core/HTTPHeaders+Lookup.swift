import FiberRuntime

/// Header lookups for the hot path, with the answers of `first(name:)`,
/// `values(name:)` and `contains(name:)`.
///
/// Why: the runtime compares names with code generic over `StringProtocol`,
/// which reads every byte through protocol witnesses; these compare the two
/// names' UTF-8 with code specialized here, by the same rule (equal bytes, or
/// the same ASCII letter in either case). The cache looks up half a dozen
/// fields a response.
extension HTTPHeaders {
    /// The first value of the field `name` (any case), if present.
    func firstValue(named name: String) -> String? {
        for field in self where Self.sameName(field.name, name) { return field.value }
        return nil
    }

    /// Every value of the field `name` (any case), in order.
    func allValues(named name: String) -> [String] {
        var values: [String] = []
        for field in self where Self.sameName(field.name, name) { values.append(field.value) }
        return values
    }

    /// True when some field is named `name` (any case).
    func hasField(named name: String) -> Bool { firstValue(named: name) != nil }

    static func sameName(_ a: String, _ b: String) -> Bool {
        let x = a.utf8, y = b.utf8
        guard x.count == y.count else { return false }
        return x.elementsEqual(y) { p, q in
            p == q || (p | 0x20 == q | 0x20 && p | 0x20 >= UInt8(ascii: "a") && p | 0x20 <= UInt8(ascii: "z"))
        }
    }
}
