import FiberRuntime
import Foundation
import Synchronization

/// A request's URL, parsed once: the text as given, the HTTP target the
/// transport sends to, and Foundation's `URL`, made only if someone reads it.
///
/// Most URLs a client sends have the plain shape `http(s)://host[:port]/path?query`;
/// the runtime's own parser reads those, and the request reaches the socket
/// without a Foundation `URL` ever being made. Any other URL is parsed by
/// Foundation when the request is built, and by the transport from its text.
final class RequestURL: Sendable {
    /// The URL as text (`URL.absoluteString` when made from a `URL`).
    let text: String
    /// The target when the text is a plain `http(s)` URL, else nil.
    let target: HTTPTarget?
    private let parsed: Mutex<URL?>

    /// `text` as a URL, or nil when it is not an absolute URL with a scheme and a host.
    init?(parsing text: String) {
        if let target = HTTPTarget.parsePlain(text) {
            self.text = text
            self.target = target
            parsed = Mutex(nil)
        } else {
            guard let url = URL(string: text), Self.isAbsolute(url) else { return nil }
            self.text = text
            self.target = nil
            parsed = Mutex(url)
        }
    }

    /// A URL given as Foundation's (absolute or not: the request decides what to make of it).
    init(_ url: URL) {
        text = url.absoluteString
        target = nil
        parsed = Mutex(url)
    }

    /// Foundation's `URL` for the text, made on first use.
    var url: URL {
        parsed.withLock { cached in
            if let cached { return cached }
            // The plain shape is a subset of what `URL` accepts; the fallback is never expected.
            let made = URL(string: text) ?? URL(fileURLWithPath: "/")
            cached = made
            return made
        }
    }

    static func isAbsolute(_ url: URL) -> Bool {
        guard let scheme = url.scheme, !scheme.isEmpty, let host = url.host, !host.isEmpty else { return false }
        return true
    }
}
