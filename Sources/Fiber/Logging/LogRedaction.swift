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

/// Reason phrases for the log's response lines.
enum HTTPStatusText {
    static func phrase(for status: Int) -> String {
        switch status {
        case 200: "OK"
        case 201: "Created"
        case 202: "Accepted"
        case 204: "No Content"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 304: "Not Modified"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 408: "Request Timeout"
        case 409: "Conflict"
        case 422: "Unprocessable Content"
        case 429: "Too Many Requests"
        case 500: "Internal Server Error"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        default: ""
        }
    }
}
