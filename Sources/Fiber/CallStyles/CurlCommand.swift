import Foundation

/// The `curl` command line that sends the same request: method, headers, body and
/// URL, each quoted for a POSIX shell (single quotes, a `'` written as `'\''`), so
/// that no value is expanded or split however odd its bytes.
public enum CurlCommand {
    /// What goes as the body.
    public enum Body: Sendable, Equatable {
        /// Bytes in memory: text as `--data-raw`, anything else (invalid UTF-8, a NUL)
        /// piped in from `printf` with every byte escaped, as `--data-binary @-`.
        case bytes(Data)
        /// A file, read by curl (`--data-binary @path`).
        case file(String)
        /// A stream only the program has: curl reads standard input (`--data-binary @-`).
        case standardInput
    }

    /// The command for a request. `proxy`, when given, is curl's `-x` value: a proxy
    /// URL for every request (`--noproxy '' --proxy URL`: curl's `NO_PROXY` cleared, so
    /// no host bypasses it), or `""` for none, whatever the environment says
    /// (`--noproxy '*'`); nil leaves curl to read the environment.
    public static func render(method: String, url: String, headers: [(name: String, value: String)], body: Body?,
                              insecure: Bool = false, proxy: String? = nil) -> String {
        var parts = ["curl"]
        var prefix = ""
        if insecure { parts.append("--insecure") }
        switch proxy {
        case nil: break
        case ""?: parts += ["--noproxy", quote("*")]
        case let url?: parts += ["--noproxy", quote(""), "--proxy", quote(url)]
        }
        if method != "GET" || body != nil {
            // A method is a token; one that is not is quoted like everything else.
            let bare = !method.isEmpty && method.utf8.allSatisfy { $0 == 0x2D || (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) }
            parts += method == "HEAD" ? ["--head"] : ["-X", bare ? method : quote(method)]
        }
        for header in headers { parts += ["-H", quote("\(header.name): \(header.value)")] }
        if body != nil {
            // curl adds a form type of its own to a body sent without one, and asks a
            // large one to wait for 100-continue: neither is what the request sends.
            if !headers.contains(where: { $0.name.lowercased() == "content-type" }) { parts += ["-H", quote("Content-Type:")] }
            if !headers.contains(where: { $0.name.lowercased() == "expect" }) { parts += ["-H", quote("Expect:")] }
        }
        switch body {
        case .bytes(let data)?:
            if let text = String(data: data, encoding: .utf8), !text.contains("\0") {
                parts += ["--data-raw", quote(text)]
            } else {
                prefix = "printf '" + data.map { String(format: "\\%03o", $0) }.joined() + "' | "
                parts += ["--data-binary", "@-"]
            }
        case .file(let path)?:
            parts += ["--data-binary", quote("@" + path)]
        case .standardInput?:
            parts += ["--data-binary", "@-"]
        case nil:
            break
        }
        parts.append(quote(url))
        return prefix + parts.joined(separator: " ")
    }

    /// `text` in single quotes, with each `'` written as `'\''`.
    static func quote(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}

extension FiberRequest {
    /// The request as a `curl` command line for a POSIX shell: its method, URL,
    /// header fields and body as they stand (before interceptors add theirs).
    /// `Authorization`, `Proxy-Authorization` and `Cookie` values and a password in
    /// the URL show as `<redacted>` unless `includingCredentials` is true. A body
    /// from a file is read by curl from the file; a body from any other stream is
    /// left to curl's standard input.
    public func cURL(includingCredentials: Bool = false) -> String {
        var headers = self.headers.map { (name: $0.name, value: $0.value) }
        var url = self.url.absoluteString
        if !includingCredentials {
            headers = headers.map { field in
                LogRedaction.isSensitive(field.name) ? (field.name, "<redacted>") : field
            }
            if var parts = URLComponents(url: self.url, resolvingAgainstBaseURL: false), parts.password != nil {
                parts.password = "redacted"
                url = parts.string ?? url
            }
        }
        let shownBody: CurlCommand.Body?
        if let stream = bodyStream {
            shownBody = stream.filePath.map { .file($0) } ?? .standardInput
        } else {
            shownBody = body.map { .bytes($0) }
        }
        return CurlCommand.render(method: httpMethod.rawValue, url: url, headers: headers, body: shownBody)
    }
}
