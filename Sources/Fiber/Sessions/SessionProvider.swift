import FiberRuntime
import Foundation

/// Sessions by user, safe to use from any task: reads come from memory, each change
/// is saved to the store before the call returns, and an expired session is removed
/// when it is asked for.
///
/// ```swift
/// let sessions = try SessionProvider()   // the encrypted file store, key from FIBER_SESSION_KEY
/// try sessions.setSession(Session(userID: "42", accessToken: access, refreshToken: refresh,
///                                 expiration: Date().addingTimeInterval(3600)))
/// if let session = sessions.getSession(for: "42") { … }
/// ```
public final class SessionProvider: Sendable {
    private let store: any SessionStore
    private let sessions: Locked<[String: Session]>
    private let now: @Sendable () -> Date

    /// Sessions kept in `store`, loaded now.
    ///
    /// - Throws: `SessionStoreError` when the store cannot be read or trusted.
    public init(store: any SessionStore, now: @escaping @Sendable () -> Date = { Date() }) throws(SessionStoreError) {
        self.store = store
        self.sessions = Locked(try store.load())
        self.now = now
    }

    /// Sessions in the encrypted file store at its default place
    /// (`EncryptedFileSessionStore.defaultPath`), under the key in the environment
    /// variable `FIBER_SESSION_KEY` (32 bytes, Base64).
    ///
    /// - Throws: `SessionStoreError`: `.invalidKey` without a usable key, and what the store's checks find.
    public convenience init() throws(SessionStoreError) {
        try self.init(store: EncryptedFileSessionStore(path: EncryptedFileSessionStore.defaultPath,
                                                       key: .environment("FIBER_SESSION_KEY")))
    }

    /// Sessions in memory only, for tests.
    public static func inMemory() -> SessionProvider {
        // An in-memory store cannot fail to load.
        try! SessionProvider(store: InMemorySessionStore())
    }

    /// Saves `session` under its user ID, replacing the one there.
    ///
    /// - Throws: `SessionStoreError` when the store cannot be written; nothing changes then.
    public func setSession(_ session: Session) throws(SessionStoreError) {
        try change { $0[session.userID] = session }
    }

    /// The session of `userID`, unless it has expired: an expired one is removed.
    /// (A failure to save that removal leaves it in the file; it is not returned.)
    public func getSession(for userID: String) -> Session? {
        guard let session = sessions.withLock({ $0[userID] }) else { return nil }
        guard session.isExpired(at: now()) else { return session }
        try? change { if $0[userID] == session { $0[userID] = nil } }
        return nil
    }

    /// The session of `userID` even when expired (its refresh token may still be good).
    func storedSession(for userID: String) -> Session? { sessions.withLock { $0[userID] } }

    /// Removes the session of `userID`.
    ///
    /// - Throws: `SessionStoreError` when the store cannot be written; nothing changes then.
    public func removeSession(for userID: String) throws(SessionStoreError) {
        try change { $0[userID] = nil }
    }

    /// Removes every session.
    ///
    /// - Throws: `SessionStoreError` when the store cannot be written; nothing changes then.
    public func clearAll() throws(SessionStoreError) {
        try change { $0.removeAll() }
    }

    /// Applies `edit` and saves the result, under one lock: concurrent changes are
    /// saved one after the other, and a failed save changes nothing.
    private func change(_ edit: (inout [String: Session]) -> Void) throws(SessionStoreError) {
        // A pthread mutex (`Locked`), which ThreadSanitizer sees, for a lock that writers contend for.
        let failure = sessions.withLock { (current: inout [String: Session]) -> SessionStoreError? in
            var next = current
            edit(&next)
            guard next != current else { return nil }
            do throws(SessionStoreError) {
                try store.save(next)
            } catch {
                return error
            }
            current = next
            return nil
        }
        if let failure { throw failure }
    }
}
