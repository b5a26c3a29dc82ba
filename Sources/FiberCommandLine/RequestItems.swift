import FiberRuntime
import Foundation

/// The request items of `fiber get|post|… URL [items]`, in HTTPie's notation:
///
/// | item | meaning |
/// | --- | --- |
/// | `Name:value` | a header |
/// | `name==value` | a query parameter |
/// | `name=value` | a JSON body field with a string value |
/// | `name:=json` | a JSON body field with a raw JSON value (`count:=3`, `tags:='["a"]'`) |
/// | `name@path` | a file sent as a part of a `multipart/form-data` body |
///
/// With `--form`, the `name=value` fields are sent as a form instead of JSON.
public struct RequestItems: Sendable, Equatable {
    /// Headers, in the order given.
    public var headers: [(name: String, value: String)] = []
    /// Query parameters, in the order given.
    public var query: [(name: String, value: String)] = []
    /// JSON body fields, in the order given (raw JSON text for each value).
    public var jsonFields: [(name: String, json: String)] = []
    /// The `name=value` fields as text, in the order given (the form fields of `--form`).
    public var textFields: [(name: String, value: String)] = []
    /// Files to upload as parts (`name@path`), in the order given.
    public var files: [(name: String, path: String)] = []

    /// An item that fits none of the forms, or a `:=` value that is not JSON.
    public struct ParseError: Error, Sendable, CustomStringConvertible, Equatable {
        public let item: String
        public let reason: String
        public var description: String { "cannot use \"\(item)\": \(reason)" }
    }

    /// No items.
    public init() {}

    /// Parses `items`.
    ///
    /// - Throws: `ParseError` for an item that fits no form.
    public init(parsing items: [String]) throws {
        for item in items {
            // The earliest separator decides, so a value may contain the others ("a=b:c").
            let separators = ["==", ":=", "=", ":", "@"]
            var best: (range: Range<String.Index>, separator: String)?
            for separator in separators {
                guard let range = item.range(of: separator) else { continue }
                if best == nil || range.lowerBound < best!.range.lowerBound
                    || (range.lowerBound == best!.range.lowerBound && separator.count > best!.separator.count) {
                    best = (range, separator)
                }
            }
            guard let (range, separator) = best else {
                throw ParseError(item: item, reason: "expected Header:value, name==query, name=string, name:=json or name@file")
            }
            let name = String(item[..<range.lowerBound])
            let value = String(item[range.upperBound...])
            guard !name.isEmpty else { throw ParseError(item: item, reason: "the name is empty") }
            switch separator {
            case ":": headers.append((name, value.hasPrefix(" ") ? String(value.dropFirst()) : value))
            case "==": query.append((name, value))
            case "=":
                jsonFields.append((name, Self.jsonString(value)))
                textFields.append((name, value))
            case "@":
                guard !value.isEmpty else { throw ParseError(item: item, reason: "the file path is empty") }
                files.append((name, value))
            default:
                guard (try? JSONSerialization.jsonObject(with: Data(value.utf8), options: [.fragmentsAllowed])) != nil else {
                    throw ParseError(item: item, reason: "\(value) is not JSON")
                }
                jsonFields.append((name, value))
            }
        }
    }

    /// The JSON object of the body fields, keys in the order given; nil without fields.
    public var jsonBody: String? {
        guard !jsonFields.isEmpty else { return nil }
        return "{" + jsonFields.map { "\(Self.jsonString($0.name)):\($0.json)" }.joined(separator: ",") + "}"
    }

    /// Whether a field was given as raw JSON (`name:=json`), which a form cannot carry.
    public var hasRawJSONFields: Bool { jsonFields.count > textFields.count }

    /// `url` with the query parameters appended (percent-encoded).
    public func url(appendingQueryTo url: String) -> String {
        guard !query.isEmpty else { return url }
        let allowed = CharacterSet.urlQueryAllowed.subtracting(CharacterSet(charactersIn: "&=+#"))
        let pairs = query.map { pair in
            let name = pair.name.addingPercentEncoding(withAllowedCharacters: allowed) ?? pair.name
            let value = pair.value.addingPercentEncoding(withAllowedCharacters: allowed) ?? pair.value
            return "\(name)=\(value)"
        }.joined(separator: "&")
        return url + (url.contains("?") ? "&" : "?") + pairs
    }

    /// `text` as a JSON string literal.
    static func jsonString(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    public static func == (a: RequestItems, b: RequestItems) -> Bool {
        a.headers.elementsEqual(b.headers, by: ==) && a.query.elementsEqual(b.query, by: ==)
            && a.jsonFields.elementsEqual(b.jsonFields, by: ==) && a.files.elementsEqual(b.files, by: ==)
    }
}
