/// One name and value of a form or a query, in the order given.
public struct URLFormItem: Sendable, Hashable {
    /// The field's name.
    public var name: String
    /// The field's value.
    public var value: String

    /// An item from its name and value.
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

/// The `application/x-www-form-urlencoded` serializer of the WHATWG URL
/// standard, the one browsers use for forms: each name and value as UTF-8,
/// `*-._` and ASCII letters and digits as they are, a space as `+`, every
/// other byte as `%XX` (upper case); `name=value` pairs joined by `&`.
public enum FormURLEncoding {
    /// The media type of a form body.
    public static let contentType = "application/x-www-form-urlencoded"

    /// `items` as a form body, in their order.
    public static func encode(_ items: [URLFormItem]) -> String {
        var out: [UInt8] = []
        for (index, item) in items.enumerated() {
            if index > 0 { out.append(UInt8(ascii: "&")) }
            append(item.name, to: &out)
            out.append(UInt8(ascii: "="))
            append(item.value, to: &out)
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static let hex = Array("0123456789ABCDEF".utf8)

    private static func append(_ text: String, to out: inout [UInt8]) {
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "*"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"):
                out.append(byte)
            case UInt8(ascii: " "):
                out.append(UInt8(ascii: "+"))
            default:
                out += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            }
        }
    }
}
