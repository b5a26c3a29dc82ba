import Configuration
import Fiber
import FiberRuntime

extension Fiber.TLSConfiguration {
    /// A client TLS configuration read from `configReader`'s keys; a key no
    /// provider has keeps its default. `Fiber.Configuration(configReader:)` reads
    /// these under `http.tls`; `Docs/Configuration.md` has the whole table.
    ///
    /// - `trustRoots` (string, default `"system"`): `"system"` for the system's
    ///   store, else the path of a PEM file of CA certificates trusted instead.
    /// - `verification` (string, default `"full"`): `"full"` (chain, dates, host
    ///   name) or `"none"` (`.insecureNoVerification`: any certificate, for a lab).
    /// - `minimumVersion`, `maximumVersion` (string, defaults `"1.2"`, `"1.3"`): `"1.2"` or `"1.3"`.
    /// - `cipherList` (string, default OpenSSL's): OpenSSL's cipher list for TLS 1.2.
    /// - `cipherSuites` (string, default `TLSConfiguration.defaultCipherSuites`): TLS 1.3 suites.
    /// - `pins` (array of strings, default none): `"host=sha256/BASE64"` (a public
    ///   key's SHA-256) or `"host=FILE"` (a whole certificate, DER or PEM); a host may repeat.
    /// - `identity.certificateChainFile`, `identity.privateKeyFile` (strings, default
    ///   none, both or neither): the client certificate chain and key (PEM) of mutual TLS.
    /// - `identity.passphrase` (string, secret, default none): opens an encrypted key.
    /// - `sessionResumption` (Boolean, default true): resume sessions per host.
    /// - `verifiedChainLifetime` (seconds or `"none"`, default 300): how long a verified chain is trusted again.
    /// - `releasesIdleBuffers` (Boolean, default false): free OpenSSL's buffers while idle.
    ///
    /// The result is then built into an OpenSSL context once, reading its files, so
    /// that what the first connection would refuse is refused now.
    ///
    /// - Throws: `FiberConfigurationError` naming the key (relative to `configReader`)
    ///   of a value of the wrong type, an unknown word, a malformed pin, an identity
    ///   file without the other, a minimum version above the maximum, or a file,
    ///   key, passphrase or cipher setting OpenSSL refuses.
    public init(configReader: ConfigReader) throws(FiberConfigurationError) {
        self = try Self.read(StrictConfigReader(configReader))
    }

    /// The configuration under `keys`, checked with OpenSSL.
    static func read(_ keys: StrictConfigReader) throws(FiberConfigurationError) -> Fiber.TLSConfiguration {
        var tls = Fiber.TLSConfiguration()
        if let roots = try keys.string("trustRoots") {
            guard !roots.isEmpty else { throw keys.error("trustRoots", "must be \"system\" or the path of a PEM file, not empty") }
            tls.trustRoots = roots == "system" ? .system : .file(roots)
        }
        if let verification = try keys.word("verification", ["full": Verification.full, "none": .insecureNoVerification]) {
            tls.verification = verification
        }
        let versions: KeyValuePairs<String, Version> = ["1.2": .tls12, "1.3": .tls13]
        if let minimum = try keys.word("minimumVersion", versions) { tls.minimumVersion = minimum }
        if let maximum = try keys.word("maximumVersion", versions) { tls.maximumVersion = maximum }
        guard tls.minimumVersion <= tls.maximumVersion else {
            throw keys.error("minimumVersion", "must not be above maximumVersion (1.3 above 1.2)")
        }
        if let list = try keys.string("cipherList") { tls.cipherList = list }
        if let suites = try keys.string("cipherSuites") { tls.cipherSuites = suites }
        if let entries = try keys.stringArray("pins") {
            tls.pins = try ConfigEntries.pins(entries, key: keys.fullKey("pins"))
        }
        tls.identity = try readIdentity(keys.scoped(to: "identity"))
        if let resumes = try keys.bool("sessionResumption") { tls.sessionResumption = resumes }
        if let lifetime = try keys.durationOrNone("verifiedChainLifetime") { tls.verifiedChainLifetime = lifetime }
        if let releases = try keys.bool("releasesIdleBuffers") { tls.releasesIdleBuffers = releases }
        try check(tls, keys)
        return tls
    }

    /// The client identity, when both of its files are named.
    private static func readIdentity(_ keys: StrictConfigReader) throws(FiberConfigurationError) -> Identity? {
        let chain = try keys.string("certificateChainFile")
        let key = try keys.string("privateKeyFile")
        let passphrase = try keys.string("passphrase", isSecret: true)
        switch (chain, key) {
        case let (chain?, key?):
            return Identity(certificateChain: .file(chain), privateKey: .file(key), passphrase: passphrase)
        case (nil, nil):
            guard passphrase == nil else { throw keys.error("passphrase", "is set without a certificateChainFile and privateKeyFile") }
            return nil
        case (_?, nil):
            throw keys.error("privateKeyFile", "must be set with certificateChainFile")
        case (nil, _?):
            throw keys.error("certificateChainFile", "must be set with privateKeyFile")
        }
    }

    /// Builds the OpenSSL context once; on failure, names the key whose value,
    /// put back to its default, lets the context build.
    private static func check(_ tls: Fiber.TLSConfiguration, _ keys: StrictConfigReader) throws(FiberConfigurationError) {
        let defaults = Fiber.TLSConfiguration()
        // The defaults need no files; the first connection loads the system's store.
        guard tls != defaults else { return }
        let failure: any Error
        do {
            try tls.checkNow()
            return
        } catch {
            failure = error
        }
        let suspects: [(key: String, reset: (inout Fiber.TLSConfiguration) -> Void)] = [
            ("trustRoots", { $0.trustRoots = defaults.trustRoots }),
            ("pins", { $0.pins = defaults.pins }),
            ("cipherList", { $0.cipherList = defaults.cipherList }),
            ("cipherSuites", { $0.cipherSuites = defaults.cipherSuites }),
            ("identity.\("\(failure)".contains("private key") ? "privateKeyFile" : "certificateChainFile")",
             { $0.identity = defaults.identity }),
        ]
        for suspect in suspects {
            var trial = tls
            suspect.reset(&trial)
            if (try? trial.checkNow()) != nil { throw keys.error(suspect.key, "cannot be used: \(failure)") }
        }
        throw keys.sectionError("cannot be used: \(failure)")
    }
}
