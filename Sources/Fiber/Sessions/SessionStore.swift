import FiberRuntime
import Foundation

/// Where a `SessionProvider` keeps its sessions: it loads them once and saves the
/// whole set after each change.
public protocol SessionStore: Sendable {
    /// Every session saved, by user ID.
    ///
    /// - Throws: `SessionStoreError` when the store cannot be read or trusted.
    func load() throws(SessionStoreError) -> [String: Session]

    /// Replaces what is saved with `sessions`, all or nothing.
    ///
    /// - Throws: `SessionStoreError` when it cannot be written.
    func save(_ sessions: [String: Session]) throws(SessionStoreError)
}

/// Sessions in memory only: for tests, and processes that must not write tokens anywhere.
public final class InMemorySessionStore: SessionStore {
    private let saved = Locked<[String: Session]>([:])

    /// An empty store.
    public init() {}

    public func load() throws(SessionStoreError) -> [String: Session] { saved.withLock { $0 } }

    public func save(_ sessions: [String: Session]) throws(SessionStoreError) { saved.withLock { $0 = sessions } }
}

/// Why a session store refused to start or to save. Messages name the path and the
/// rule, never a token.
public struct SessionStoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong.
    public enum Kind: String, Sendable, Equatable {
        /// The key is not 32 bytes (AES-256), or its source (file, variable) is missing or unreadable.
        case invalidKey
        /// The store was written under another key.
        case wrongKey
        /// The file is not a store, or was changed: it fails its authentication.
        case corrupted
        /// The file or its directory can be read or written by others, or belongs to another user.
        case permissionsTooOpen
        /// A system call failed (`detail` says which and why: disk full, read-only, …).
        case io
    }

    /// What went wrong.
    public let kind: Kind
    /// The file concerned.
    public let path: String
    /// More about it, for people.
    public let detail: String

    /// An error of `kind` about `path`.
    public init(_ kind: Kind, path: String, _ detail: String) {
        self.kind = kind
        self.path = path
        self.detail = detail
    }

    public var description: String { "session store \(path): \(detail)" }
}
