/// A content coding this client decodes (RFC 9110 §8.4.1): gzip and deflate
/// always, `br` and `zstd` when built with their package traits (`Brotli`,
/// `Zstd`, on by default). `Accept-Encoding` names exactly these.
enum ContentCoding: String, Sendable, Hashable, CaseIterable {
    case gzip
    case deflate
    case brotli = "br"
    case zstd

    /// The codings compiled into this build, in the order `Accept-Encoding` lists them.
    static let available: [ContentCoding] = allCases.filter(\.isAvailable)

    /// The `Accept-Encoding` value sent by default: every coding compiled in.
    static let acceptEncoding = available.map(\.rawValue).joined(separator: ", ")

    /// False for a coding whose trait was off at build time.
    var isAvailable: Bool {
        switch self {
        case .gzip, .deflate: return true
        case .brotli:
            #if Brotli
            return true
            #else
            return false
            #endif
        case .zstd:
            #if Zstd
            return true
            #else
            return false
            #endif
        }
    }

    /// The coding a `Content-Encoding` value names, if it is one this build decodes.
    /// A list of several codings is not decoded (nil), as before.
    init?(contentEncoding value: String) {
        switch value.trimmingSpaces().lowercased() {
        case "gzip", "x-gzip": self = .gzip
        case "deflate": self = .deflate
        case "br": self = .brotli
        case "zstd": self = .zstd
        default: return nil
        }
        guard isAvailable else { return nil }
    }

    /// A new decoder for this coding.
    ///
    /// - Throws: `ContentDecodingError` when the library cannot start (out of memory).
    func makeDecoder() throws(ContentDecodingError) -> any ContentDecoder {
        switch self {
        case .gzip, .deflate: return try ZlibContentDecoder(self)
        case .brotli:
            #if Brotli
            return try BrotliDecoder()
            #else
            throw ContentDecodingError(description: "built without the Brotli trait")
            #endif
        case .zstd:
            #if Zstd
            return try ZstdDecoder()
            #else
            throw ContentDecodingError(description: "built without the Zstd trait")
            #endif
        }
    }
}
