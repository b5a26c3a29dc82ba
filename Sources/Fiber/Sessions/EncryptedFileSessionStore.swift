import Crypto
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Sessions in one file, encrypted with AES-256-GCM under a key the operator provides:
/// the secret store of a Linux server, which has no keychain.
///
/// - The file is written whole to a temporary file beside it (mode 0600), flushed
///   to disk, renamed over the old one, and the directory flushed: a crash at any
///   point leaves the old file or the new one, never half of either.
/// - The file must belong to the process's user with no access for group or others
///   (0600 or 0400), and its directory must belong to that user and be writable by
///   no one else; otherwise the store refuses to start. A missing directory is made
///   with mode 0700.
/// - The file starts with a key identifier (a hash of the key, not the key), so that a
///   wrong key is told apart from a damaged file; both refuse to start, and nothing is
///   overwritten until the operator fixes the key or moves the file aside.
/// - Nothing of a session is ever logged or put in an error.
public struct EncryptedFileSessionStore: SessionStore {
    /// Where the key comes from.
    public enum KeySource: Sendable {
        /// The 32 bytes themselves.
        case bytes(SymmetricKey)
        /// A file holding the 32 bytes, raw or in Base64; like the store, it must not
        /// be readable by group or others.
        case file(String)
        /// An environment variable holding the 32 bytes in Base64.
        case environment(String)
        /// A function that fetches the key (from a KMS, a vault); called once, at start.
        case provider(@Sendable () throws -> SymmetricKey)
    }

    /// `$XDG_STATE_HOME/fiber/sessions.store`, else `~/.local/state/fiber/sessions.store`.
    public static var defaultPath: String {
        let environment = ProcessInfo.processInfo.environment
        let state = environment["XDG_STATE_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (NSHomeDirectory() as NSString).appendingPathComponent(".local/state")
        return (state as NSString).appendingPathComponent("fiber/sessions.store")
    }

    /// The file.
    public let path: String
    private let key: SymmetricKey
    private static let magic = Data("FIBERSESSIONS1".utf8)

    /// A store at `path` under the key from `key`.
    ///
    /// - Throws: `SessionStoreError`: `.invalidKey` for a key that is missing or not
    ///   32 bytes; `.permissionsTooOpen` for a directory others may write (or owned
    ///   by another user); `.io` when the directory cannot be made.
    public init(path: String, key source: KeySource) throws(SessionStoreError) {
        self.path = path
        self.key = try Self.key(from: source, for: path)
        try Self.prepareDirectory(of: path)
        Self.removeLeftovers(of: path)
    }

    /// Removes temporary files a write that did not finish left beside the store (a
    /// crash before the rename): the store itself is the old one, whole.
    private static func removeLeftovers(of path: String) {
        let directory = (path as NSString).deletingLastPathComponent
        let prefix = (path as NSString).lastPathComponent + ".tmp-"
        for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] where name.hasPrefix(prefix) {
            unlink((directory as NSString).appendingPathComponent(name))
        }
    }

    public func load() throws(SessionStoreError) -> [String: Session] {
        var status = stat()
        guard lstat(path, &status) == 0 else {
            if errno == ENOENT { return [:] }
            throw Self.ioError(path, "cannot read its attributes")
        }
        guard (status.st_mode & S_IFMT) == S_IFREG else {
            throw SessionStoreError(.permissionsTooOpen, path: path, "is not a regular file (a link or a device is not trusted)")
        }
        try Self.checkPrivate(status, path: path, what: "the file")
        guard let contents = FileManager.default.contents(atPath: path) else { throw Self.ioError(path, "cannot be read") }
        let identifier = Self.identifier(of: key)
        let header = Self.magic + identifier
        guard contents.count > header.count, contents.prefix(Self.magic.count) == Self.magic else {
            throw SessionStoreError(.corrupted, path: path, "is not a session store (its header is missing)")
        }
        guard contents.dropFirst(Self.magic.count).prefix(identifier.count) == identifier else {
            throw SessionStoreError(.wrongKey, path: path, "was written under another key")
        }
        do {
            let box = try AES.GCM.SealedBox(combined: contents.dropFirst(header.count))
            let plain = try AES.GCM.open(box, using: key, authenticating: header)
            return try JSONDecoder().decode([String: Session].self, from: plain)
        } catch {
            throw SessionStoreError(.corrupted, path: path, "fails its authentication: it was damaged or changed")
        }
    }

    public func save(_ sessions: [String: Session]) throws(SessionStoreError) {
        let header = Self.magic + Self.identifier(of: key)
        let sealed: Data
        do {
            let plain = try JSONEncoder().encode(sessions)
            guard let combined = try AES.GCM.seal(plain, using: key, authenticating: header).combined else {
                throw SessionStoreError(.io, path: path, "cannot be sealed")
            }
            sealed = header + combined
        } catch let error as SessionStoreError {
            throw error
        } catch {
            throw SessionStoreError(.io, path: path, "cannot be encoded")
        }
        let temporary = path + ".tmp-\(UInt64.random(in: 0...UInt64.max))"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { throw Self.ioError(temporary, "cannot be created") }
        var failure: SessionStoreError?
        sealed.withUnsafeBytes { raw in
            var done = 0
            while done < raw.count {
                let n = write(descriptor, raw.baseAddress! + done, raw.count - done)
                if n < 0, errno == EINTR { continue }
                if n <= 0 {
                    failure = Self.ioError(temporary, "cannot be written")
                    return
                }
                done += n
            }
        }
        if failure == nil, fsync(descriptor) != 0 { failure = Self.ioError(temporary, "cannot be flushed to disk") }
        close(descriptor)
        if failure == nil, rename(temporary, path) != 0 { failure = Self.ioError(path, "cannot be replaced") }
        if let failure {
            unlink(temporary)
            throw failure
        }
        // The rename is durable once the directory is.
        let directory = open((path as NSString).deletingLastPathComponent, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directory >= 0 {
            _ = fsync(directory)
            close(directory)
        }
    }

    // MARK: Checks

    /// Makes the directory (0700) when missing; refuses one that others may write or another user owns.
    private static func prepareDirectory(of path: String) throws(SessionStoreError) {
        let directory = (path as NSString).deletingLastPathComponent
        if !FileManager.default.fileExists(atPath: directory) {
            do {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                        attributes: [.posixPermissions: 0o700])
            } catch {
                throw SessionStoreError(.io, path: directory, "cannot be created")
            }
        }
        var status = stat()
        guard stat(directory, &status) == 0 else { throw ioError(directory, "cannot read its attributes") }
        guard status.st_uid == geteuid() else {
            throw SessionStoreError(.permissionsTooOpen, path: directory, "belongs to another user (uid \(status.st_uid))")
        }
        guard status.st_mode & (S_IWGRP | S_IWOTH) == 0 else {
            throw SessionStoreError(.permissionsTooOpen, path: directory,
                                    "may be written by group or others (mode \(String(status.st_mode & 0o777, radix: 8))): use 0700")
        }
    }

    /// Refuses a file another user owns, or one that group or others may read or write.
    private static func checkPrivate(_ status: stat, path: String, what: String) throws(SessionStoreError) {
        guard status.st_uid == geteuid() else {
            throw SessionStoreError(.permissionsTooOpen, path: path, "\(what) belongs to another user (uid \(status.st_uid))")
        }
        guard status.st_mode & 0o077 == 0 else {
            throw SessionStoreError(.permissionsTooOpen, path: path,
                                    "\(what) is open to group or others (mode \(String(status.st_mode & 0o777, radix: 8))): use 0600")
        }
    }

    private static func key(from source: KeySource, for path: String) throws(SessionStoreError) -> SymmetricKey {
        let key: SymmetricKey
        switch source {
        case .bytes(let bytes):
            key = bytes
        case .environment(let name):
            guard let text = ProcessInfo.processInfo.environment[name], !text.isEmpty else {
                throw SessionStoreError(.invalidKey, path: path, "the environment variable \(name) is not set")
            }
            guard let bytes = Data(base64Encoded: text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
                throw SessionStoreError(.invalidKey, path: path, "the environment variable \(name) is not Base64")
            }
            key = SymmetricKey(data: bytes)
        case .file(let keyPath):
            var status = stat()
            guard stat(keyPath, &status) == 0, let contents = FileManager.default.contents(atPath: keyPath) else {
                throw SessionStoreError(.invalidKey, path: keyPath, "the key file cannot be read")
            }
            try checkPrivate(status, path: keyPath, what: "the key file")
            let text = String(decoding: contents, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            key = SymmetricKey(data: contents.count == 32 ? contents : (Data(base64Encoded: text) ?? contents))
        case .provider(let fetch):
            do {
                key = try fetch()
            } catch {
                throw SessionStoreError(.invalidKey, path: path, "the key provider failed: \(type(of: error))")
            }
        }
        guard key.bitCount == 256 else {
            throw SessionStoreError(.invalidKey, path: path, "the key has \(key.bitCount / 8) bytes, not 32 (AES-256)")
        }
        return key
    }

    /// Eight bytes that name the key without revealing it.
    private static func identifier(of key: SymmetricKey) -> Data {
        let digest = key.withUnsafeBytes { SHA256.hash(data: Data("fiber-session-key".utf8) + Data($0)) }
        return Data(digest.prefix(8))
    }

    private static func ioError(_ path: String, _ what: String) -> SessionStoreError {
        SessionStoreError(.io, path: path, "\(what): \(String(cString: strerror(errno)))")
    }
}
