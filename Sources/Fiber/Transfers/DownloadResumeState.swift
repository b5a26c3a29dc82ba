import FiberRuntime

/// What it takes to resume a download: a plain `Codable` value, to keep across a
/// process restart (as JSON, for example) and to resume from, even from another
/// URL for the same resource (a mirror, a fresh signed link).
///
/// `FiberDownloader` writes the partial file beside the destination as
/// `destination + ".fiberpart"`, and this state beside that as
/// `destination + ".fiberpart.json"`, so that a download of the same destination
/// after a crash resumes on its own.
public struct DownloadResumeState: Codable, Sendable, Equatable {
    /// The URL the bytes came from.
    public var url: String
    /// Where the finished file goes.
    public var destination: String
    /// Bytes of the file already on disk, in the partial file.
    public var bytesOnDisk: Int
    /// The resource's validator (a strong `ETag`, else `Last-Modified`) sent as
    /// `If-Range`; nil when the server gave none, and the download cannot resume.
    public var validator: String?
    /// The whole file's size, when known.
    public var totalBytes: Int?

    /// A state from its parts.
    public init(url: String, destination: String, bytesOnDisk: Int, validator: String?, totalBytes: Int?) {
        self.url = url
        self.destination = destination
        self.bytesOnDisk = bytesOnDisk
        self.validator = validator
        self.totalBytes = totalBytes
    }

    /// The validator a response gives to resume with: a strong `ETag` (weak ones may
    /// not be used in `If-Range`), else `Last-Modified`; nil when it gives neither.
    public static func validator(in headers: HTTPHeaders) -> String? {
        if let etag = headers["ETag"], !etag.hasPrefix("W/"), etag.count >= 2 { return etag }
        return headers["Last-Modified"]
    }

    /// The partial file: `destination` + `.fiberpart`, in the same directory (renamed
    /// into place in one step when done).
    public var partialPath: String { destination + ".fiberpart" }
    /// Where the downloader keeps this state while it writes: `partialPath` + `.json`.
    public var statePath: String { partialPath + ".json" }
}

/// A finished download.
public struct DownloadedFile: Sendable, Equatable {
    /// Where the file is.
    public let path: String
    /// Its size in bytes.
    public let bytes: Int
    /// The bytes that were on disk already when this run started (0 for a download from zero).
    public let resumedFrom: Int
    /// The SHA-256 of the whole file, in lower-case hex, when one was expected (and matched).
    public let sha256: String?
}
