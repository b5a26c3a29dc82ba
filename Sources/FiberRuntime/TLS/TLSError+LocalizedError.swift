import FoundationEssentials

extension TLSError: LocalizedError {
    /// One sentence for people: what failed, for which host, and which
    /// certificate (`TLS: the certificate of example.com (CN=example.com)
    /// expired on 2026-01-01 00:00 UTC`), without OpenSSL's words.
    public var errorDescription: String? { summary }
}
