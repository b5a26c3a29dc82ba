import Crypto
import Fiber
import FiberTesting
import Foundation
import Synchronization
import Testing

/// Sessions and their encrypted file store, on the real file system.
@Suite("Sessions in a secret store", .timeLimit(.minutes(1)))
struct SessionStoreTests {
    /// A fresh private directory (0700) for one test; removed afterwards.
    static func withDirectory<T>(_ body: (String) async throws -> T) async rethrows -> T {
        let directory = NSTemporaryDirectory() + "fiber-sessions-\(UUID().uuidString)"
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                 attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(atPath: directory) }
        return try await body(directory)
    }

    static func mode(of path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.posixPermissions] as? Int) ?? -1
    }

    static func session(_ user: String, expiresIn seconds: TimeInterval? = 3600, refresh: String? = "r-\(UUID())") -> Session {
        Session(userID: user, accessToken: "access-\(user)-secret", refreshToken: refresh,
                expiration: seconds.map { Date().addingTimeInterval($0) })
    }

    @Test func expiryAndTheFiveMinuteRefreshWindow() {
        let now = Date(timeIntervalSince1970: 1_000_000)
        let soon = Session(userID: "u", accessToken: "a", refreshToken: "r", expiration: now.addingTimeInterval(299))
        let later = Session(userID: "u", accessToken: "a", refreshToken: "r", expiration: now.addingTimeInterval(301))
        let noRefresh = Session(userID: "u", accessToken: "a", expiration: now.addingTimeInterval(10))
        let forever = Session(userID: "u", accessToken: "a", refreshToken: "r")
        #expect(soon.shouldRefresh(at: now) && !later.shouldRefresh(at: now) && !noRefresh.shouldRefresh(at: now))
        #expect(!soon.isExpired(at: now) && soon.isExpired(at: now.addingTimeInterval(299)))
        #expect(!forever.isExpired(at: .distantFuture) && !forever.shouldRefresh(at: .distantFuture))
    }

    @Test func printingASessionShowsNoToken() {
        let session = Session(userID: "42", accessToken: "tok-visible?", refreshToken: "ref-visible?")
        var dumped = ""
        dump(session, to: &dumped)
        for text in ["\(session)", String(reflecting: session), dumped] {
            #expect(!text.contains("visible") && text.contains("42"), "\(text)")
        }
    }

    @Test func anExpiredSessionIsRemovedWhenAskedFor() throws {
        let clock = Mutex(Date())
        let store = InMemorySessionStore()
        let provider = try SessionProvider(store: store) { clock.withLock { $0 } }
        try provider.setSession(Self.session("a", expiresIn: 60))
        try provider.setSession(Self.session("b", expiresIn: nil))
        #expect(provider.getSession(for: "a") != nil)
        clock.withLock { $0 = $0.addingTimeInterval(61) }
        #expect(provider.getSession(for: "a") == nil && provider.getSession(for: "b") != nil)
        #expect(try store.load().keys.sorted() == ["b"])
        try provider.removeSession(for: "b")
        #expect(try store.load().isEmpty)
        try provider.setSession(Self.session("c"))
        try provider.clearAll()
        #expect(try store.load().isEmpty && SessionProvider.inMemory().getSession(for: "c") == nil)
    }

    @Test func theFileIsPrivateEncryptedAndSurvivesARestart() async throws {
        try await Self.withDirectory { directory in
            let path = directory + "/state/sessions.store"
            let key = SymmetricKey(size: .bits256)
            let provider = try SessionProvider(store: EncryptedFileSessionStore(path: path, key: .bytes(key)))
            try provider.setSession(Self.session("ada"))
            try provider.setSession(Self.session("lin"))
            #expect(Self.mode(of: path) == 0o600 && Self.mode(of: directory + "/state") == 0o700)
            let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
            #expect(bytes.range(of: Data("secret".utf8)) == nil && bytes.range(of: Data("ada".utf8)) == nil)
            let reopened = try SessionProvider(store: EncryptedFileSessionStore(path: path, key: .bytes(key)))
            #expect(reopened.getSession(for: "ada")?.accessToken == "access-ada-secret")
            #expect(reopened.getSession(for: "lin") == provider.getSession(for: "lin"))
        }
    }

    @Test func aWrongKeyAndADamagedFileRefuseToStart() async throws {
        try await Self.withDirectory { directory in
            let path = directory + "/sessions.store"
            let key = SymmetricKey(size: .bits256)
            try SessionProvider(store: EncryptedFileSessionStore(path: path, key: .bytes(key))).setSession(Self.session("ada"))
            let original = try Data(contentsOf: URL(fileURLWithPath: path))
            do throws(SessionStoreError) {
                _ = try SessionProvider(store: EncryptedFileSessionStore(path: path, key: .bytes(SymmetricKey(size: .bits256))))
                Issue.record("another key was accepted")
            } catch {
                #expect(error.kind == .wrongKey && error.path == path)
            }
            // Nothing was overwritten by the refusal.
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == original)
            for damage in ["flip", "truncate", "garbage", "empty"] {
                var bytes = original
                switch damage {
                case "flip": bytes[bytes.count - 20] ^= 0x01
                case "truncate": bytes = bytes.prefix(30)
                case "garbage": bytes = Data((0..<200).map { _ in UInt8.random(in: 0...255) })
                default: bytes = Data()
                }
                try bytes.write(to: URL(fileURLWithPath: path))
                chmod(path, 0o600)
                do throws(SessionStoreError) {
                    _ = try EncryptedFileSessionStore(path: path, key: .bytes(key)).load()
                    Issue.record("a \(damage) file was accepted")
                } catch {
                    #expect(error.kind == .corrupted, "\(damage): \(error)")
                }
            }
        }
    }

    @Test func permissionsTooOpenRefuseToStart() async throws {
        try await Self.withDirectory { directory in
            let path = directory + "/sessions.store"
            let key = SymmetricKey(size: .bits256)
            try SessionProvider(store: EncryptedFileSessionStore(path: path, key: .bytes(key))).setSession(Self.session("ada"))
            chmod(path, 0o644)
            #expect(throws: SessionStoreError(.permissionsTooOpen, path: path, "the file is open to group or others (mode 644): use 0600")) {
                _ = try SessionProvider(store: EncryptedFileSessionStore(path: path, key: .bytes(key)))
            }
            chmod(path, 0o600)
            chmod(directory, 0o777)
            defer { chmod(directory, 0o700) }
            do throws(SessionStoreError) {
                _ = try EncryptedFileSessionStore(path: path, key: .bytes(key))
                Issue.record("a directory others may write was accepted")
            } catch {
                #expect(error.kind == .permissionsTooOpen && error.path == directory)
            }
        }
    }

    @Test func keysComeFromBytesFilesAndProvidersAndMustBe32Bytes() async throws {
        try await Self.withDirectory { directory in
            let path = directory + "/sessions.store"
            let key = SymmetricKey(size: .bits256)
            let raw = key.withUnsafeBytes { Data($0) }
            let keyFile = directory + "/key"
            try raw.base64EncodedString().write(toFile: keyFile, atomically: true, encoding: .utf8)
            chmod(keyFile, 0o600)
            try SessionProvider(store: EncryptedFileSessionStore(path: path, key: .file(keyFile))).setSession(Self.session("ada"))
            let viaProvider = try SessionProvider(store: EncryptedFileSessionStore(path: path, key: .provider { key }))
            #expect(viaProvider.getSession(for: "ada") != nil)

            func kind(_ source: EncryptedFileSessionStore.KeySource) -> SessionStoreError.Kind? {
                let opened = Result { () throws(SessionStoreError) in try EncryptedFileSessionStore(path: path, key: source) }
                if case .failure(let error) = opened { return error.kind }
                return nil
            }
            struct VaultDown: Error {}
            #expect(kind(.bytes(SymmetricKey(size: .bits128))) == .invalidKey)
            #expect(kind(.provider { throw VaultDown() }) == .invalidKey)
            #expect(kind(.file(directory + "/no-such-key")) == .invalidKey)
            #expect(kind(.environment("FIBER_TEST_UNSET_\(UUID().uuidString.prefix(8))")) == .invalidKey)
            #expect(kind(.environment("PATH")) == .invalidKey)
            chmod(keyFile, 0o644)
            #expect(kind(.file(keyFile)) == .permissionsTooOpen)
        }
    }

    @Test func manyConcurrentWritersLoseNothing() async throws {
        try await Self.withDirectory { directory in
            let path = directory + "/sessions.store"
            let key = SymmetricKey(size: .bits256)
            let provider = try SessionProvider(store: EncryptedFileSessionStore(path: path, key: .bytes(key)))
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<100 {
                    group.addTask { try provider.setSession(Self.session("user-\(index)")) }
                }
                try await group.waitForAll()
            }
            let reloaded = try EncryptedFileSessionStore(path: path, key: .bytes(key)).load()
            #expect(reloaded.count == 100 && (0..<100).allSatisfy { reloaded["user-\($0)"] != nil })
        }
    }

    /// A crash after the new file was written and before the rename: the old file is
    /// whole and loads; the leftover is removed at the next start.
    @Test func aCrashBeforeTheRenameLeavesTheOldFileValid() async throws {
        try await Self.withDirectory { directory in
            let path = directory + "/sessions.store"
            let key = SymmetricKey(size: .bits256)
            try SessionProvider(store: EncryptedFileSessionStore(path: path, key: .bytes(key))).setSession(Self.session("ada"))
            let leftover = path + ".tmp-12345"
            let other = directory + "/other"
            try SessionProvider(store: EncryptedFileSessionStore(path: other, key: .bytes(key))).setSession(Self.session("lin"))
            try FileManager.default.moveItem(atPath: other, toPath: leftover)   // a complete new file, never renamed
            let reopened = try SessionProvider(store: EncryptedFileSessionStore(path: path, key: .bytes(key)))
            #expect(reopened.getSession(for: "ada") != nil && reopened.getSession(for: "lin") == nil)
            #expect(!FileManager.default.fileExists(atPath: leftover))
        }
    }

    /// A store that cannot save: the provider keeps what it had.
    @Test func aFailedSaveChangesNothing() throws {
        struct FullDisk: SessionStore {
            func load() throws(SessionStoreError) -> [String: Session] { [:] }
            func save(_ sessions: [String: Session]) throws(SessionStoreError) {
                throw SessionStoreError(.io, path: "/full", "cannot be written: No space left on device")
            }
        }
        let provider = try SessionProvider(store: FullDisk())
        #expect(throws: SessionStoreError.self) { try provider.setSession(Self.session("ada")) }
        #expect(provider.getSession(for: "ada") == nil)
    }

    /// Tokens from a session, refreshed once ahead of expiry for many concurrent requests,
    /// and once more when the server says the token is no longer good.
    @Test func authTakesTokensFromASessionAndRefreshesAheadOfExpiry() async throws {
        try await withLiveServer { server, transport in
            let good = Mutex("fresh-1")
            server.route("GET", "/me") { request in
                request.header("Authorization") == "Bearer \(good.withLock { $0 })" ? .ok("hi") : .status(401)
            }
            let sessions = SessionProvider.inMemory()
            try sessions.setSession(Session(userID: "u", accessToken: "old", refreshToken: "r0",
                                            expiration: Date().addingTimeInterval(120)))   // inside the five minutes
            let refreshes = Mutex(0)
            let auth = AuthInterceptor(sessions: sessions, userID: "u") { session in
                let n = refreshes.withLock { $0 += 1; return $0 }
                try await Task.sleep(for: .milliseconds(50))
                return Session(userID: session.userID, accessToken: "fresh-\(n)", refreshToken: "r\(n)",
                               expiration: Date().addingTimeInterval(3600))
            }
            let fiber = Fiber(server.baseURL) {
                $0.transport = transport
                $0.interceptors = [auth]
            }
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<20 { group.addTask { try await fiber.get("/me").statusCode } }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(statuses.allSatisfy { $0 == 200 } && refreshes.withLock { $0 } == 1)
            #expect(sessions.getSession(for: "u")?.accessToken == "fresh-1")

            // The server stops taking the token: one refresh, the request replayed.
            good.withLock { $0 = "fresh-2" }
            #expect(try await fiber.get("/me").statusCode == 200 && refreshes.withLock { $0 } == 2)

            // No session at all: the refresh a 401 asks for fails, typed.
            try sessions.clearAll()
            await expectFiberError({ if case .interceptor("auth", _ as AuthSessionMissing) = $0 { true } else { false } }) {
                _ = try await fiber.get("/me")
            }
        }
    }
}
