import FiberRuntime
import FiberTesting
import Foundation
import Testing

/// The `fiber` command, beside the test bundle in the build directory.
enum FiberBinary {
    static let path = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        .appendingPathComponent("fiber").path
    static var exists: Bool { FileManager.default.isExecutableFile(atPath: path) }
}

/// A download whose process is killed (SIGKILL: no chance to clean up) is
/// resumed by the next process that downloads the same file, from the bytes the
/// first one left on disk. Runs the `fiber` command as a child process
/// (`Scripts/test` links it before the tests).
@Suite(.timeLimit(.minutes(1)), .enabled(if: FiberBinary.exists, "the fiber binary is not built"))
struct KilledDownloadTests {

    @Test func theNextProcessResumesFromWhatTheKilledOneWrote() async throws {
        let content = patternedBytes(4 * 1024 * 1024, seed: 21)
        let stallAt = 1024 * 1024
        let released = Locked(false)
        let ranges = Locked<[String?]>([])
        let server = try await TestHTTPServer.start()
        defer { released.withLock { $0 = true } }
        server.route("GET", "/big.bin") { request in
            ranges.withLock { $0.append(request.header("Range")) }
            if let range = request.header("Range"), let start = Int(range.dropFirst(6).dropLast()),
               request.header("If-Range") == "\"k1\"" {
                return .bytes(Array(content[start...]), status: 206,
                              headers: ["Content-Range": "bytes \(start)-\(content.count - 1)/\(content.count)", "ETag": "\"k1\""])
            }
            // The first answer stops part-way until the test is done with the process.
            return .stream(status: 200, headers: ["ETag": "\"k1\""]) { writer in
                try await writer.write(Array(content[..<stallAt]))
                let deadline = ContinuousClock.now + .seconds(20)
                while !released.withLock({ $0 }), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
                try await writer.write(Array(content[stallAt...]))
            }
        }
        let directory = NSTemporaryDirectory() + "fiber-killed-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/big.bin"
        let url = server.url("/big.bin")

        let first = try ChildProcess.spawn(FiberBinary.path, arguments: ["get", url, "--output", path], output: directory + "/first.log")
        try await waitUntil("the first process wrote up to the stall", timeout: .seconds(30)) {
            let size = (try? FileManager.default.attributesOfItem(atPath: path + ".fiberpart"))?[.size] as? Int
            return size == stallAt && FileManager.default.fileExists(atPath: path + ".fiberpart.json")
        }
        kill(first.pid, SIGKILL)
        while first.isRunning { try await Task.sleep(for: .milliseconds(5)) }
        #expect(first.exitDescription == "killed by signal 9")
        #expect(!FileManager.default.fileExists(atPath: path))

        let second = try ChildProcess.spawn(FiberBinary.path, arguments: ["get", url, "--output", path], output: directory + "/second.log")
        let succeeded = await second.waitForSuccess(timeout: .seconds(30))
        let log = (try? String(contentsOfFile: directory + "/second.log", encoding: .utf8)) ?? ""
        #expect(succeeded, "\(second.exitDescription): \(log)")
        #expect(log.contains("resumed at 1.0 MiB"), "\(log)")
        #expect(ranges.withLock { $0 } == [nil, "bytes=\(stallAt)-"])
        #expect(FileManager.default.contents(atPath: path).map { $0.elementsEqual(content) } == true)
        #expect(!FileManager.default.fileExists(atPath: path + ".fiberpart"))
        #expect(!FileManager.default.fileExists(atPath: path + ".fiberpart.json"))
        await server.shutdown()
    }
}
