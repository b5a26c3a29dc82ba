import COpenSSL

/// The kind and the sentence of a refused certificate: which certificate
/// (the one at the depth where verification failed, not always the leaf),
/// of which host, and what is wrong with it, in words a person acts on.
struct CertificateRefusal {
    let kind: TLSError.Kind
    let sentence: String

    /// The refusal `code` of a chain presented for `host`, from what the
    /// verification callback saw (`failure`), else from the leaf alone.
    init(code: Int32, failure: VerificationFailure?, leaf: CertificateFacts?, host: String?) {
        let host = host ?? "the server"
        let failure = failure?.code == code ? failure : nil
        let depth = failure?.depth ?? 0
        guard let certificate = failure?.certificate ?? leaf else {
            kind = Self.kind(of: code)
            sentence = "the certificate of \(host) was refused: \(Self.reason(code))"
            return
        }
        // The leaf by its host, any other certificate by its name and depth.
        let named = depth == 0 ? "the certificate of \(host) (\(certificate.name))"
                               : "\(certificate.name) (depth \(depth)) in the chain of \(host)"
        kind = Self.kind(of: code)
        if let reason = failure?.reason {
            sentence = "\(named) \(reason)"
            return
        }
        switch code {
        case X509_V_ERR_CERT_HAS_EXPIRED:
            sentence = "\(named) expired on \(certificate.notAfter)"
        case X509_V_ERR_CERT_NOT_YET_VALID:
            sentence = "\(named) is not valid until \(certificate.notBefore) (is this machine's clock right?)"
        case X509_V_ERR_HOSTNAME_MISMATCH, X509_V_ERR_IP_ADDRESS_MISMATCH:
            sentence = Self.mismatch(certificate, host: host)
        case X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT:
            sentence = "\(named) is self-signed and not in your trust roots"
        case X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN:
            sentence = "the chain of \(host) ends in the root \(certificate.name) (depth \(depth)), which is not in your trust roots"
        case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY, X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE, X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT:
            sentence = Self.missingIssuer(of: certificate, depth: depth, failure: failure, named: named, host: host)
        case X509_V_ERR_INVALID_CA:
            sentence = "\(named) is not a CA certificate, yet it issued the certificate below it"
        case X509_V_ERR_PATH_LENGTH_EXCEEDED:
            let limit = certificate.pathLength.map { "at most \($0) intermediate CA certificate\($0 == 1 ? "" : "s")" } ?? "fewer CA certificates"
            sentence = "\(named) allows \(limit) below it, and the chain has more"
        case X509_V_ERR_INVALID_PURPOSE:
            sentence = "\(named) is not meant for TLS servers (its extended key usage)"
        case X509_V_ERR_CERT_SIGNATURE_FAILURE:
            sentence = "the signature on \(named) does not verify with its issuer's key"
        default:
            sentence = "\(named) was refused: \(Self.reason(code))"
        }
    }

    /// OpenSSL's own words for `code`.
    static func reason(_ code: Int32) -> String {
        String(cString: X509_verify_cert_error_string(Int(code)))
    }

    private static func kind(of code: Int32) -> TLSError.Kind {
        switch code {
        case X509_V_ERR_CERT_HAS_EXPIRED: .certificateExpired
        case X509_V_ERR_CERT_NOT_YET_VALID: .certificateNotYetValid
        case X509_V_ERR_HOSTNAME_MISMATCH, X509_V_ERR_IP_ADDRESS_MISMATCH: .hostnameMismatch
        case X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT: .selfSignedCertificate
        case X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN: .untrustedRoot
        case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY, X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT,
             X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE: .issuerNotFound
        default: .certificateInvalid
        }
    }

    /// The names the certificate holds, and the reminder that a common name does not count (RFC 9525 §6.3).
    private static func mismatch(_ certificate: CertificateFacts, host: String) -> String {
        let named = "the certificate presented for \(host) (\(certificate.name))"
        let commonNameHint = certificate.commonName.map { TLSEngine.bareIPLiteral($0.lowercased()) == TLSEngine.bareIPLiteral(host.lowercased()) } == true
            ? "; its common name is not checked" : ""
        guard let names = certificate.subjectAltNames else {
            return "\(named) has no subject alternative name\(commonNameHint)"
        }
        return "\(named) names \(names), not \(host)\(commonNameHint)"
    }

    /// No certificate of the issuer was found: as well as OpenSSL lets one
    /// tell, whether the server left an intermediate out or the trust roots
    /// lack the root.
    private static func missingIssuer(of certificate: CertificateFacts, depth: Int, failure: VerificationFailure?,
                                      named: String, host: String) -> String {
        let issuer = certificate.issuerName
        guard let failure else {
            return "no certificate of \(issuer), the issuer of \(named), was sent by the server or is in your trust roots"
        }
        if failure.isTrusted {
            // A CA of the trust roots that is not a root itself (OpenSSL does not accept partial chains).
            return "\(certificate.name) (depth \(depth)) of your trust roots is not a root, and its issuer \(issuer) is not in them"
        }
        if depth == 0 && failure.presentedCount <= 1 {
            return "\(host) sent no intermediate certificate, and its certificate's issuer \(issuer) is not in your trust roots"
        }
        if depth > 0 && failure.isLastPresented {
            // The server sent its chain up to here; what is missing is most likely the root.
            return "\(issuer), which issued \(named), is not in your trust roots"
        }
        return "the chain \(host) sent is incomplete: no certificate of \(issuer), the issuer of \(named), was sent or is in your trust roots"
    }
}
