/// A configuration's pins, keyed by each host's canonical form, so that a
/// pin set is found however its host is written (`API.Example.com`,
/// `example.com.`, `[::1]`, `0:0:0:0:0:0:0:1`) and a key that could never
/// match a host is refused instead of being skipped without a word.
struct PinnedHosts: Sendable {
    private let pins: [String: [CertificatePin]]

    /// The pins of `configured`, keys made canonical; pins of keys that name the same host are joined.
    ///
    /// - Throws: `TLSError` `.invalidConfiguration` for a key that is not a
    ///   host name or an IP literal (a port, a scheme, a wildcard, non-ASCII text, …).
    init(_ configured: [String: [CertificatePin]]) throws {
        var pins: [String: [CertificatePin]] = [:]
        for (key, keyPins) in configured.sorted(by: { $0.key < $1.key }) {
            guard let host = Self.canonical(key) else {
                throw TLSError(.invalidConfiguration, "the pins' key \"\(key)\" is not a host name or an IP literal, so it would never match "
                               + "(write the host alone, like \"api.example.com\" or \"::1\"; an international name in its xn-- form)")
            }
            pins[host, default: []] += keyPins
        }
        self.pins = pins
    }

    /// The pins for `host`, however it is written.
    func pins(for host: String) -> [CertificatePin] {
        guard !pins.isEmpty else { return [] }
        return pins[Self.canonical(host) ?? host.lowercased()] ?? []
    }

    /// The form pins are keyed by: an IP literal without brackets or zone, in
    /// its RFC 5952 text; a DNS name in lowercase ASCII without a trailing
    /// dot. Nil for anything else.
    static func canonical(_ host: String) -> String? {
        if let address = SocketAddress(ipLiteral: TLSEngine.bareIPLiteral(host), port: 0) { return address.host }
        var name = Substring(host.lowercased())
        if name.hasSuffix(".") { name = name.dropLast() }
        guard !name.isEmpty, name.utf8.count <= 253 else { return nil }
        let labels = name.split(separator: ".", omittingEmptySubsequences: false)
        let isName = labels.allSatisfy { label in
            (1...63).contains(label.utf8.count) && label.utf8.allSatisfy { byte in
                (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                    || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
            }
        }
        return isName ? String(name) : nil
    }
}
