import FiberRuntime
import Foundation

/// What a log may show of a message: credentials redacted, bodies cut short.
enum LogRedaction {
    /// Header fields whose values are never logged.
    static let sensitiveHeaders: Set<String> = ["authorization", "proxy-authorization", "cookie", "set-cookie"]

    /// The fields as `Name: value` lines, sensitive values replaced by `<redacted>`.
    static func headers(_ headers: HTTPHeaders) -> [String] {
        headers.map { field in
            let value = sensitiveHeaders.contains(field.name.lowercased()) ? "<redacted>" : field.value
            return "\(field.name): \(value)"
        }
    }

    /// The body as text, cut after `limit` characters (then `...`); binary bodies as their size.
    static func body(_ data: Data, limit: Int) -> String {
        guard let text = String(data: data, encoding: .utf8) else { return "<\(data.count) bytes>" }
        guard text.count > limit else { return text }
        return String(text.prefix(max(0, limit))) + "..."
    }
}
