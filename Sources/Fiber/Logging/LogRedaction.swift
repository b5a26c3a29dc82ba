import FiberRuntime
import Foundation

/// What a log may show of a message: credentials redacted, bodies cut short.
enum LogRedaction {
    /// Header fields whose values are never logged.
    private static let sensitiveHeaders: Set<String> = ["authorization", "proxy-authorization", "cookie", "set-cookie"]

    /// Whether the field `name` (any case) carries credentials, which are never shown.
    static func isSensitive(_ name: String) -> Bool { sensitiveHeaders.contains(name.lowercased()) }

    /// The fields as `Name: value` lines, sensitive values replaced by `<redacted>`.
    static func headers(_ headers: HTTPHeaders) -> [String] {
        headers.map { field in "\(field.name): \(isSensitive(field.name) ? "<redacted>" : field.value)" }
    }

    /// The body as text, cut after `limit` characters (then `...`); binary bodies as their size.
    static func body(_ data: Data, limit: Int) -> String {
        guard let text = String(data: data, encoding: .utf8) else { return "<\(data.count) bytes>" }
        guard text.count > limit else { return text }
        return String(text.prefix(max(0, limit))) + "..."
    }
}
