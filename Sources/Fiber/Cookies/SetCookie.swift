import Foundation

/// One `Set-Cookie` field value read as RFC 6265 §5.2 says, leniently, as browsers
/// do: attribute names in any case, an attribute that cannot be read ignored (never
/// the cookie), the last of a repeated attribute winning. Only a line without a
/// `name=value` pair, with an empty name, or with a control byte in its name or
/// value (which could not be sent back in a `Cookie` field) is no cookie at all.
struct SetCookie: Sendable, Hashable {
    var name: String
    var value: String
    var expires: Date?
    /// Seconds, as given (zero or less deletes the cookie).
    var maxAge: Int?
    /// In lower case, without a leading dot; nil when absent or empty.
    var domain: String?
    /// Nil when absent or not starting with `/` (the request's default path applies).
    var path: String?
    var isSecure = false
    var isHTTPOnly = false
    var sameSite: Cookie.SameSite?

    /// An attribute value longer than this is ignored (RFC 6265bis §5.6).
    static let maxAttributeValueBytes = 1024

    /// The cookie of `line`, or nil when it has none (see the type's overview).
    init?(_ line: String) {
        var parts = line.split(separator: ";", maxSplits: .max, omittingEmptySubsequences: false)[...]
        guard let pair = parts.popFirst(), let equals = pair.firstIndex(of: "=") else { return nil }
        name = Self.trimmed(pair[..<equals])
        value = Self.trimmed(pair[pair.index(after: equals)...])
        guard !name.isEmpty, Self.isSendable(name), Self.isSendable(value) else { return nil }
        for attribute in parts { apply(attribute) }
    }

    private mutating func apply(_ attribute: Substring) {
        let equals = attribute.firstIndex(of: "=")
        let key = Self.trimmed(attribute[..<(equals ?? attribute.endIndex)]).lowercased()
        let value = equals.map { Self.trimmed(attribute[attribute.index(after: $0)...]) } ?? ""
        guard value.utf8.count <= Self.maxAttributeValueBytes else { return }
        switch key {
        case "expires":
            if let date = CookieDate.parse(value) { expires = date }
        case "max-age":
            if let seconds = Self.maxAge(value) { maxAge = seconds }
        case "domain":
            var domain = value.lowercased()
            if domain.hasPrefix(".") { domain.removeFirst() }
            self.domain = domain.isEmpty ? nil : domain
        case "path":
            path = value.hasPrefix("/") ? value : nil
        case "secure":
            isSecure = true
        case "httponly":
            isHTTPOnly = true
        case "samesite":
            sameSite = Cookie.SameSite(rawValue: value.lowercased())
        default:
            break  // unknown attributes (Priority, Partitioned, misspellings) are ignored
        }
    }

    /// §5.2.2: an optional `-` then digits; a value too large for an `Int` is as large as one.
    private static func maxAge(_ text: String) -> Int? {
        let negative = text.hasPrefix("-")
        let digits = negative ? text.dropFirst() : text[...]
        guard !digits.isEmpty, digits.utf8.allSatisfy({ $0 &- 0x30 < 10 }) else { return nil }
        if negative { return Int(text) ?? .min }
        return Int(digits) ?? .max
    }

    /// Spaces and tabs trimmed from both ends.
    private static func trimmed(_ text: Substring) -> String {
        let isBlank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = text.firstIndex(where: { !isBlank($0) }), let last = text.lastIndex(where: { !isBlank($0) }) else {
            return ""
        }
        return String(text[first...last])
    }

    /// No control byte, `;` or DEL: what a `Cookie` field value could not carry.
    private static func isSendable(_ text: String) -> Bool {
        text.utf8.allSatisfy { $0 >= 0x20 && $0 != 0x7F && $0 != UInt8(ascii: ";") }
    }
}
