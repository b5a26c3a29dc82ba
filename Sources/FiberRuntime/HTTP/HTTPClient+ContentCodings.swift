extension HTTPClient {
    /// The content codings this build decodes, in the order `Accept-Encoding` lists them:
    /// `gzip` and `deflate`, then `br` and `zstd` when the package was built with its
    /// `Brotli` and `Zstd` traits (both on by default).
    public static var contentCodings: [String] { ContentCoding.available.map(\.rawValue) }
}
