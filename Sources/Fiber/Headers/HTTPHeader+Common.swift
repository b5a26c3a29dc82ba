import FiberRuntime
import Foundation

extension HTTPHeaders.Field {
    /// `Accept: value`.
    public static func accept(_ value: String) -> HTTPHeader { HTTPHeader(name: "Accept", value: value) }

    /// `Accept-Charset: value`.
    public static func acceptCharset(_ value: String) -> HTTPHeader { HTTPHeader(name: "Accept-Charset", value: value) }

    /// `Accept-Encoding: value`.
    public static func acceptEncoding(_ value: String) -> HTTPHeader { HTTPHeader(name: "Accept-Encoding", value: value) }

    /// `Accept-Language: value`.
    public static func acceptLanguage(_ value: String) -> HTTPHeader { HTTPHeader(name: "Accept-Language", value: value) }

    /// `Accept-Language` from language tags in order of preference: the first six, with
    /// q-values from 1.0 down by tenths (`en-US;q=1.0, fr;q=0.9`). Empty and repeated
    /// tags are skipped.
    public static func acceptLanguage(preferred languages: [String]) -> HTTPHeader {
        acceptLanguage(qualityList(languages))
    }

    /// `Authorization: Basic …`, the user and password joined by a colon and Base64-encoded (RFC 7617).
    public static func authorization(username: String, password: String) -> HTTPHeader {
        let credentials = Data("\(username):\(password)".utf8).base64EncodedString()
        return HTTPHeader(name: "Authorization", value: "Basic \(credentials)")
    }

    /// `Authorization: Bearer token` (RFC 6750).
    public static func authorization(bearerToken: String) -> HTTPHeader {
        HTTPHeader(name: "Authorization", value: "Bearer \(bearerToken)")
    }

    /// `Authorization: value`, as given.
    public static func authorization(_ value: String) -> HTTPHeader { HTTPHeader(name: "Authorization", value: value) }

    /// `Content-Disposition: value`.
    public static func contentDisposition(_ value: String) -> HTTPHeader {
        HTTPHeader(name: "Content-Disposition", value: value)
    }

    /// `Content-Encoding: value`.
    public static func contentEncoding(_ value: String) -> HTTPHeader { HTTPHeader(name: "Content-Encoding", value: value) }

    /// `Content-Type: value`.
    public static func contentType(_ value: String) -> HTTPHeader { HTTPHeader(name: "Content-Type", value: value) }

    /// `User-Agent: value`; by default `defaultUserAgent`.
    public static func userAgent(_ value: String = defaultUserAgent) -> HTTPHeader {
        HTTPHeader(name: "User-Agent", value: value)
    }

    /// `Fiber (Linux 6.1.0; x86_64) Swift/6.3`: the library, the system and its release,
    /// the machine, and the Swift the library was built with.
    public static let defaultUserAgent: String = {
        var system = utsname()
        _ = uname(&system)
        func text<T>(_ field: T) -> String {
            withUnsafeBytes(of: field) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        }
        let release = text(system.release).split(separator: "-").first.map(String.init) ?? ""
        return "Fiber (\(text(system.sysname)) \(release); \(text(system.machine))) Swift/\(swiftVersion)"
    }()

    /// `Accept-Language` from the process's preferred languages (`Locale.preferredLanguages`,
    /// which on Linux come from `LANGUAGE`, `LC_ALL`, `LC_MESSAGES` and `LANG`); nil when there are none.
    public static var defaultAcceptLanguage: HTTPHeader? {
        let languages = Locale.preferredLanguages
        return languages.isEmpty ? nil : acceptLanguage(preferred: languages)
    }

    /// `a;q=1.0, b;q=0.9, …` for at most six distinct, non-empty items.
    static func qualityList(_ items: [String]) -> String {
        var seen = Set<String>()
        let chosen = items.map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && seen.insert($0.lowercased()).inserted }
            .prefix(6)
        // Tenths as integers: no floating-point text such as 0.30000000000000004.
        return chosen.enumerated().map { index, item in
            let tenths = 10 - index
            return "\(item);q=\(tenths / 10).\(tenths % 10)"
        }.joined(separator: ", ")
    }

    private static var swiftVersion: String {
        #if compiler(>=6.4)
        "6.4"
        #elseif compiler(>=6.3)
        "6.3"
        #elseif compiler(>=6.2)
        "6.2"
        #else
        "6"
        #endif
    }
}
