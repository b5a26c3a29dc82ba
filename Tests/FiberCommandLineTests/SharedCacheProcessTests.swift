import FiberRuntime
import FiberTesting
import Foundation
import Testing

/// `fiber get --cache FILE` from several processes at once: one SQLite file is the
/// HTTP cache of all of them.
@Suite(.timeLimit(.minutes(2)), .enabled(if: FiberBinary.exists, "the fiber binary is not built"))
struct SharedCacheProcessTests {
    @Test func processesShareOneCacheFile() async throws {
        let hits = Locked(0)
        let server = try await TestHTTPServer.start()
        server.route("GET", "/catalog") { _ in
            let hit = hits.withLock { $0 += 1; return $0 }
            return TestResponse(status: 200, headers: ["Cache-Control": "max-age=300", "Content-Type": "text/plain"],
                                body: .bytes(Array("catalog v\(hit)".utf8)))
        }
        let directory = NSTemporaryDirectory() + "fiber-cache-processes-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let cache = directory + "/http.sqlite"
        let url = server.url("/catalog")

        // Four processes at once on a new file: all succeed (they wait for each other's locks).
        let racers = try (0..<4).map { index in
            try ChildProcess.spawn(FiberBinary.path, arguments: ["get", url, "--cache", cache], output: directory + "/race-\(index).log")
        }
        for (index, racer) in racers.enumerated() {
            let succeeded = await racer.waitForSuccess(timeout: .seconds(60))
            #expect(succeeded, "racer \(index): \(racer.exitDescription) \(log(directory + "/race-\(index).log"))")
        }
        let afterRace = hits.withLock { $0 }
        #expect((1...4).contains(afterRace))

        // Later processes are answered from the file: the server sees no one.
        for index in 0..<3 {
            let child = try ChildProcess.spawn(FiberBinary.path, arguments: ["get", url, "--cache", cache],
                                               output: directory + "/later-\(index).log")
            #expect(await child.waitForSuccess(timeout: .seconds(60)))
            #expect(log(directory + "/later-\(index).log").hasPrefix("catalog v"))
        }
        #expect(hits.withLock { $0 } == afterRace)
        await server.shutdown()
    }

    /// A cache file that is not a database: the command warns, starts an empty cache and succeeds.
    @Test func aDamagedCacheFileIsReplaced() async throws {
        let server = try await TestHTTPServer.start()
        server.route("GET", "/a") { _ in .ok("fine") }
        let directory = NSTemporaryDirectory() + "fiber-cache-damaged-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let cache = directory + "/http.sqlite"
        try Data(repeating: 0x41, count: 10_000).write(to: URL(fileURLWithPath: cache))
        let child = try ChildProcess.spawn(FiberBinary.path, arguments: ["get", server.url("/a"), "--cache", cache],
                                           output: directory + "/out.log")
        #expect(await child.waitForSuccess(timeout: .seconds(60)))
        let output = log(directory + "/out.log")
        #expect(output.contains("started an empty cache") && output.contains("fine"), "\(output)")
        await server.shutdown()
    }

    func log(_ path: String) -> String { (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }
}
