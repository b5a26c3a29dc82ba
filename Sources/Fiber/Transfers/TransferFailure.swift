import FiberRuntime

/// Why a download failed, when the reason is the transfer's own, thrown as
/// `FiberError.networkError(underlying:)` with this inside (`FiberError` keeps
/// its eight cases, so exhaustive switches written over them still compile);
/// network and HTTP failures keep their usual errors.
public struct TransferFailure: Error, Sendable, CustomStringConvertible {
    /// What went wrong, as a small open set of values.
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }
        public var description: String { name }

        /// The destination or its partial file could not be written, renamed or
        /// removed: a directory missing or unwritable, a full disk (`underlying` says).
        public static let destination = Kind("cannot write the destination")
        /// The whole file's SHA-256 is not the one expected.
        public static let checksumMismatch = Kind("checksum mismatch")
        /// The server broke the rules of ranges: a 206 not asked for, a
        /// `Content-Range` that does not parse, a resume it refused twice.
        public static let malformedResponse = Kind("malformed response to a download")
    }

    /// What went wrong.
    public let kind: Kind
    /// More about it, for people.
    public let detail: String
    /// The file concerned.
    public let path: String
    /// The URL being downloaded.
    public let url: String
    /// The file system's error underneath, for `.destination`.
    public let underlying: (any Error)?

    init(_ kind: Kind, _ detail: String, path: String, url: String, underlying: (any Error)? = nil) {
        self.kind = kind
        self.detail = detail
        self.path = path
        self.url = url
        self.underlying = underlying
    }

    /// `kind: detail (path, from url) [underlying]`.
    public var description: String {
        let cause = underlying.map { error in
            (error as? TransportError)?.systemMessage.map { " [\($0)]" } ?? " [\(error)]"
        } ?? ""
        return "\(kind): \(detail) (\(path), from \(url))\(cause)"
    }
}
