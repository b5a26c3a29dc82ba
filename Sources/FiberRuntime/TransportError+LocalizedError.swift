import FoundationEssentials

extension TransportError: LocalizedError {
    /// One sentence for people: what failed and where (`connect failed:
    /// connection refused (host example.com, address 192.0.2.1:443)`), or
    /// the TLS error's own sentence.
    public var errorDescription: String? { summary }
}
