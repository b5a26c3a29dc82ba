import FoundationEssentials

extension HTTPClientError: LocalizedError {
    /// One sentence for people: what failed, then the URL. A socket or TLS
    /// failure is told by its own sentence (`TLS: the certificate of
    /// example.com (CN=example.com) expired on 2026-01-01 00:00 UTC
    /// (https://example.com/)`), so neither "TLS" nor the host is said twice.
    public var errorDescription: String? { summary }

    /// The sentence, then the URL.
    var summary: String {
        let sentence: String
        if let proxy, kind == .proxy {
            sentence = proxy.description
        } else if let transport, kind == .tls || kind == .transport {
            sentence = transport.summary + (detail.map { ": \($0)" } ?? "")
        } else {
            sentence = "\(kind)" + (detail.map { ": \($0)" } ?? "") + (transport.map { ": \($0.summary)" } ?? "")
        }
        return url.map { "\(sentence) (\($0))" } ?? sentence
    }

    /// What `description` says: `summary`, then the layers' details (the
    /// system's or OpenSSL's words) in brackets.
    var composedDescription: String {
        guard let details = transport?.details, !details.isEmpty else { return summary }
        return "\(summary) [\(details.joined(separator: "; "))]"
    }
}
