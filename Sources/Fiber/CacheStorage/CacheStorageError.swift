import Foundation

/// Why a `CacheStorage` could not do what it was asked.
public struct CacheStorageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong.
    public enum Kind: Sendable, Equatable {
        /// The storage's file is not what it should be (not a database, a damaged page,
        /// a record that does not decode).
        case corrupt
        /// The operating system refused or failed a read or write (permissions, a full disk).
        case io
        /// The storage is busy with another process for longer than it waits.
        case busy
        /// Its configuration cannot work (a path that is not a directory, a limit below zero).
        case invalidConfiguration
    }

    /// What went wrong.
    public var kind: Kind
    /// The file or directory concerned.
    public var path: String
    /// What the storage was told by the system or library, for logs.
    public var detail: String

    /// An error from its parts.
    public init(_ kind: Kind, path: String, detail: String) {
        self.kind = kind
        self.path = path
        self.detail = detail
    }

    /// The kind, path and detail.
    public var description: String { "cache storage \(kind) at \(path): \(detail)" }
}

extension CacheStorageError: LocalizedError {
    /// The description.
    public var errorDescription: String? { description }
}
