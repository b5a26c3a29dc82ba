import ArgumentParser
import FiberRuntime

/// The TLS options every network command takes (`get`…`delete`, `bench`,
/// `ws`): what is trusted and what the client presents.
public struct TLSOptions: ParsableArguments, Sendable {
    @Flag(help: "Accept any TLS certificate and host name (never for production).")
    public var insecure = false

    @Option(help: "A PEM file of CA certificates to trust instead of the system's.")
    public var caFile: String?

    @Option(help: "A PEM file with the client certificate (and its chain) to present; the key too unless --key.")
    public var cert: String?

    @Option(help: "A PEM file with the client certificate's private key.")
    public var key: String?

    /// No options: verification on, the system's trust store, no client certificate.
    public init() {}

    /// Refuses `--key` without `--cert` (ArgumentParser's usage error).
    ///
    /// - Throws: `ValidationError`.
    public func validate() throws {
        if key != nil, cert == nil { throw ValidationError("--key needs --cert") }
    }

    /// `configuration` with these options applied.
    public func applied(to configuration: TLSConfiguration) -> TLSConfiguration {
        var configuration = configuration
        if insecure { configuration.verification = .insecureNoVerification }
        if let caFile { configuration.trustRoots = .file(caFile) }
        if let cert { configuration.identity = .init(certificateChain: .file(cert), privateKey: .file(key ?? cert)) }
        return configuration
    }
}
