/// The `curl` command line that sends the same request, as Networking's
/// logger prints it: method, headers, body, URL, each quoted for a POSIX shell.
public enum CurlCommand {
    /// The command for a request; a body read from a file is `bodyFile` (`--data-binary @path`).
    public static func render(method: String, url: String, headers: [(name: String, value: String)], body: String?,
                              bodyFile: String? = nil, insecure: Bool = false) -> String {
        var parts = ["curl"]
        if insecure { parts.append("--insecure") }
        if method != "GET" || body != nil || bodyFile != nil { parts += method == "HEAD" ? ["--head"] : ["-X", method] }
        for header in headers { parts += ["-H", quote("\(header.name): \(header.value)")] }
        if let body { parts += ["--data-raw", quote(body)] }
        if let bodyFile { parts += ["--data-binary", quote("@" + bodyFile)] }
        parts.append(quote(url))
        return parts.joined(separator: " ")
    }

    /// `text` in single quotes, with each `'` written as `'\''`.
    static func quote(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
