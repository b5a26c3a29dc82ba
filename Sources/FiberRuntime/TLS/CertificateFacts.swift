import COpenSSL
#if canImport(Glibc)
import Glibc
#endif

/// What a message about a refused certificate says of it: its name, its
/// issuer's, its dates, its path length constraint, its alternative names. Read from
/// OpenSSL's `X509` only when a verification fails, so a handshake that
/// succeeds never pays for it.
struct CertificateFacts: Sendable, Hashable {
    /// `CN=…` when the subject has a common name, else the whole subject.
    let name: String
    /// The issuer, in the same form.
    let issuerName: String
    /// The subject's common name, if it has one.
    let commonName: String?
    /// Start of validity, `2026-01-01 00:00 UTC`.
    let notBefore: String
    /// End of validity, `2026-01-01 00:00 UTC`.
    let notAfter: String
    /// A CA's path length constraint, if it has one.
    let pathLength: Int?
    /// The subject alternative names as OpenSSL prints them (`DNS:localhost, IP Address:127.0.0.1`), nil without any.
    let subjectAltNames: String?
    /// SHA-256 of the DER, to find it among the certificates the server sent.
    let fingerprint: [UInt8]

    /// Reads `certificate` (not consumed).
    init(_ certificate: OpaquePointer) {
        let subject = X509_get_subject_name(certificate)
        commonName = Self.commonName(subject)
        name = commonName.map { "CN=\($0)" } ?? Self.wholeName(subject)
        let issuer = X509_get_issuer_name(certificate)
        issuerName = Self.commonName(issuer).map { "CN=\($0)" } ?? Self.wholeName(issuer)
        notBefore = Self.date(X509_get0_notBefore(certificate))
        notAfter = Self.date(X509_get0_notAfter(certificate))
        let limit = X509_get_pathlen(certificate)
        pathLength = limit >= 0 ? Int(limit) : nil
        subjectAltNames = Self.subjectAltNames(certificate)
        fingerprint = Self.fingerprint(certificate)
    }

    /// SHA-256 of `certificate`'s DER (empty if OpenSSL cannot encode it).
    static func fingerprint(_ certificate: OpaquePointer) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        guard X509_digest(certificate, EVP_sha256(), &digest, &length) == 1, length == 32 else { return [] }
        return digest
    }

    private static func commonName(_ name: OpaquePointer?) -> String? {
        guard let name else { return nil }
        let index = X509_NAME_get_index_by_NID(name, NID_commonName, -1)
        guard index >= 0, let entry = X509_NAME_get_entry(name, index), let data = X509_NAME_ENTRY_get_data(entry) else { return nil }
        var utf8: UnsafeMutablePointer<UInt8>? = nil
        let length = ASN1_STRING_to_UTF8(&utf8, data)
        guard length >= 0, let utf8 else { return nil }
        defer { fiber_openssl_free(utf8) }
        return String(decoding: UnsafeBufferPointer(start: utf8, count: Int(length)), as: UTF8.self)
    }

    /// The whole name in OpenSSL's one-line form (`/O=…/OU=…`), for a name without a common name.
    private static func wholeName(_ name: OpaquePointer?) -> String {
        guard let name, let text = X509_NAME_oneline(name, nil, 0) else { return "?" }
        defer { fiber_openssl_free(text) }
        return String(cString: text)
    }

    private static func subjectAltNames(_ certificate: OpaquePointer) -> String? {
        let index = X509_get_ext_by_NID(certificate, NID_subject_alt_name, -1)
        guard index >= 0, let extensionEntry = X509_get_ext(certificate, index) else { return nil }
        return printed { X509V3_EXT_print($0, extensionEntry, 0, 0) == 1 }
    }

    /// What `print` writes into a memory BIO, nil if it fails.
    private static func printed(_ print: (OpaquePointer) -> Bool) -> String? {
        guard let bio = BIO_new(BIO_s_mem()) else { return nil }
        defer { BIO_free(bio) }
        guard print(bio) else {
            ERR_clear_error()
            return nil
        }
        var data: UnsafeMutablePointer<CChar>? = nil
        let count = fiber_bio_mem_data(bio, &data)
        guard let data, count > 0 else { return nil }
        return String(decoding: UnsafeRawBufferPointer(start: data, count: count), as: UTF8.self)
    }

    /// `2026-01-01 00:00 UTC`, or `?` for a time OpenSSL cannot read.
    private static func date(_ time: UnsafePointer<ASN1_TIME>?) -> String {
        var parts = tm()
        guard let time, ASN1_TIME_to_tm(time, &parts) == 1 else { return "?" }
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday)) \(two(parts.tm_hour)):\(two(parts.tm_min)) UTC"
    }
}
