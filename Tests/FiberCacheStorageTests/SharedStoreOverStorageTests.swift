import Fiber
import FiberRuntime
import FiberSharing
import FiberSQLite
import Foundation
import Testing

/// `SharedCacheStore` over a storage other than its directory: what its policy keeps
/// on disk goes to the storage, and another store on the same SQLite file reads it.
@Suite struct SharedStoreOverStorageTests {
    struct Team: Codable, Equatable, Sendable {
        let id: Int
        let name: String
    }

    @Test func persistentEntriesReachAnotherStoreThroughOneSQLiteFile() async throws {
        let scratch = Scratch()
        let path = scratch.path("shared.sqlite")
        let writer = SharedCacheStore(storage: try SQLiteCacheStorage(path: path))
        let teams = [Team(id: 1, name: "Ops"), Team(id: 2, name: "Zoë's")]
        await writer.set("GET:/teams", value: teams, policy: .persistent, etag: "\"t1\"")
        await writer.set("GET:/me", value: Team(id: 9, name: "me"), policy: .default)  // memory only

        let reader = SharedCacheStore(storage: try SQLiteCacheStorage(path: path))
        let found = try #require(await reader.get("GET:/teams", as: [Team].self))
        #expect(found.value == teams && found.source == .disk && found.etag == "\"t1\"" && found.isFresh)
        #expect(await reader.get("GET:/me", as: Team.self) == nil, "a memory-only entry never reaches the storage")
        #expect(await reader.diskCount == 1)

        await reader.invalidateMatching("GET:/teams")
        #expect(await writer.diskCount == 0)
    }

    /// A storage that fails is a tier that misses: the store keeps working from memory.
    @Test func aFailingStorageIsATierThatMisses() async throws {
        let store = SharedCacheStore(storage: FailingStorage())
        await store.set("GET:/a", value: Team(id: 1, name: "a"), policy: .aggressive)
        #expect(await store.get("GET:/a", as: Team.self)?.value == Team(id: 1, name: "a"))
        #expect(await store.get("GET:/b", as: Team.self) == nil)
        #expect(await store.diskCount == 0)
        await store.invalidateAll()
        #expect(await store.memoryCount == 0)
    }
}

/// A storage whose every operation fails, as a full or vanished disk would.
struct FailingStorage: CacheStorage {
    func fail() -> CacheStorageError { CacheStorageError(.io, path: "/nowhere", detail: "disk full") }
    func record(forKey key: String) async throws(CacheStorageError) -> CacheRecord? { throw fail() }
    func store(_ record: CacheRecord) async throws(CacheStorageError) { throw fail() }
    func removeRecord(forKey key: String) async throws(CacheStorageError) { throw fail() }
    func removeRecords(where matches: @escaping @Sendable (String) -> Bool) async throws(CacheStorageError) { throw fail() }
    func removeAll() async throws(CacheStorageError) { throw fail() }
    func count() async throws(CacheStorageError) -> Int { throw fail() }
}

/// `CacheInterceptor` over a failing storage: every request still succeeds, from the network.
@Suite struct InterceptorOverFailingStorageTests {
    @Test func requestsNeverFailBecauseOfTheStorage() async throws {
        let calls = Locked(0)
        let transport = CountingTransport(calls: calls)
        let fiber = Fiber("https://api.example.test") {
            $0.interceptors = [CacheInterceptor(storage: FailingStorage())]
            $0.transport = transport
        }
        for _ in 0..<3 {
            let response = try await fiber.get("/a")
            #expect(response.text == "fresh")
        }
        #expect(calls.withLock { $0 } == 3)
    }
}

struct CountingTransport: FiberTransport {
    let calls: Locked<Int>

    func send(_ request: TransportRequest) async throws -> (Data, TransportResponse) {
        calls.withLock { $0 += 1 }
        return (Data("fresh".utf8), TransportResponse(statusCode: 200, headers: ["Cache-Control": "max-age=60"], url: request.url))
    }
}
