import X509

extension TestPKI {
    /// The files `write(into:)` makes in `hardening/`: under "Hardening Root
    /// CA" (`root.pem`) and its intermediate (`intermediate.pem`), leaves for
    /// `localhost` that a client must refuse or accept. Names: only the
    /// subject's CN (`cn-only.pem`), only an IP address (`ip-san-only.pem`),
    /// a DNS name (`dns-san.pem`), wildcards (`wildcard.pem` for
    /// `*.fiber.test`, `partial-wildcard.pem` for `w*.fiber.test`). Key usage
    /// of an RSA-2048 leaf (`rsa.key`): keyEncipherment only
    /// (`ku-encipherment.pem`), digitalSignature only (`ku-signature.pem`),
    /// no KeyUsage at all (`ku-none.pem`). Broken chains: an expired leaf
    /// (`leaf-expired.pem`), a leaf without its intermediate
    /// (`leaf-only.pem`), an expired intermediate (`expired-intermediate.pem`),
    /// an intermediate that is not a CA (`not-ca-intermediate.pem`), a CA
    /// under a path length of 0 (`path-length.pem`), and a chain from a
    /// root nobody trusts (`private-root.pem`). Every leaf but the RSA ones
    /// has the key `leaf.key`; each chain file holds the leaf then its CAs.
    public static let hardeningFiles = [
        "leaf.key", "rsa.key", "root.pem", "intermediate.pem", "cn-only.pem", "ip-san-only.pem", "dns-san.pem",
        "wildcard.pem", "partial-wildcard.pem", "ku-encipherment.pem", "ku-signature.pem", "ku-none.pem",
        "leaf-expired.pem", "leaf-only.pem", "expired-intermediate.pem", "not-ca-intermediate.pem",
        "path-length.pem", "private-root.pem",
    ]

    func writeHardening(into out: Output) throws {
        let root = Authority("Hardening Root CA")
        let intermediate = Authority("Hardening Intermediate CA")
        let leafKey = Key.p256()
        let rsaKey = try Key.rsa2048()
        try out.write("leaf.key", leafKey.pem)
        try out.write("rsa.key", rsaKey.pem)
        let rootCertificate = try issue(root.name, key: root.key, by: root, .authority())
        let intermediateCertificate = try issue(intermediate.name, key: intermediate.key, by: root, .authority())
        try out.write("root.pem", pem(rootCertificate))
        try out.write("intermediate.pem", pem(intermediateCertificate))

        func leaf(_ file: String, key: Key = leafKey, _ shape: Shape) throws {
            let certificate = try issue("localhost", key: key, by: intermediate, shape)
            try out.write(file, pem(certificate, intermediateCertificate))
        }
        try leaf("cn-only.pem", .server([]))
        try leaf("ip-san-only.pem", .server(["127.0.0.1"]))
        try leaf("dns-san.pem", .server(["localhost"]))
        try leaf("wildcard.pem", .server(["*.fiber.test"]))
        try leaf("partial-wildcard.pem", .server(["w*.fiber.test"]))
        try leaf("ku-encipherment.pem", key: rsaKey, .server(Self.local, keyUsage: KeyUsage(keyEncipherment: true)))
        try leaf("ku-signature.pem", key: rsaKey, .server(Self.local, keyUsage: KeyUsage(digitalSignature: true)))
        try leaf("ku-none.pem", key: rsaKey, .server(Self.local))
        try leaf("leaf-expired.pem", .server(Self.local, .expired))
        try out.write("leaf-only.pem", pem(try issue("localhost", key: leafKey, by: intermediate, .server(Self.local))))

        let old = Authority("Hardening Expired Intermediate CA")
        let oldCertificate = try issue(old.name, key: old.key, by: root, .authority(validity: .expired))
        let underOld = try issue("localhost", key: leafKey, by: old, .server(Self.local))
        try out.write("expired-intermediate.pem", pem(underOld, oldCertificate))

        // A certificate that is no CA (BasicConstraints CA:FALSE) signing a leaf.
        let fake = Authority("Hardening Not A CA")
        let fakeCertificate = try issue(fake.name, key: fake.key, by: root, .server([]))
        let underFake = try issue("localhost", key: leafKey, by: fake, .server(Self.local))
        try out.write("not-ca-intermediate.pem", pem(underFake, fakeCertificate))

        let zero = Authority("Hardening Path Zero CA")
        let sub = Authority("Hardening Sub CA")
        let zeroCertificate = try issue(zero.name, key: zero.key, by: root, .authority(pathLength: 0))
        let subCertificate = try issue(sub.name, key: sub.key, by: zero, .authority())
        let underSub = try issue("localhost", key: leafKey, by: sub, .server(Self.local))
        try out.write("path-length.pem", pem(underSub, subCertificate, zeroCertificate))

        let privateRoot = Authority("Hardening Private Root CA")
        let privateIntermediate = Authority("Hardening Private Intermediate CA")
        let privateCertificate = try issue(privateIntermediate.name, key: privateIntermediate.key, by: privateRoot, .authority())
        let underPrivate = try issue("localhost", key: leafKey, by: privateIntermediate, .server(Self.local))
        try out.write("private-root.pem", pem(underPrivate, privateCertificate))
    }
}
