import FiberRuntime
import FiberTesting
import Foundation
import Testing

/// The `fiber` command, beside the test bundle in the build directory.
enum FiberBinary {
    static let path = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        .appendingPathComponent("fiber").path
    static var exists: Bool { FileManager.default.isExecutableFile(atPath: path) }
    /// Whether this build runs under a sanitizer (the binary beside it too), whose
    /// shadow memory makes a bound on resident memory meaningless.
    static let isSanitized = ["__tsan_init", "__asan_init"].contains { (name: String) in
        dlsym(UnsafeMutableRawPointer(bitPattern: 0), name) != nil
    }
}

/// Downloads by the `fiber` command run as a child process (`Scripts/test` links
/// it before the tests), so that a process can be killed and its memory read alone.
@Suite(.timeLimit(.minutes(2)), .enabled(if: FiberBinary.exists, "the fiber binary is not built"))
struct DownloadProcessTests {
    /// A download whose process is killed (SIGKILL: no chance to clean up) is
    /// resumed by the next process that downloads the same file, from the bytes the
    /// first one left on disk.

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

    /// A 2 GiB body streamed to a file: the process's resident memory stays flat, its
    /// peak under 64 MiB all told (the command itself takes about 30; `Scripts/bench-transfer`
    /// measures the growth over a transfer in release builds).
    /// The partial file is a link to /dev/null, so the disk is not involved and the test
    /// leaves nothing behind.
    @Test(.enabled(if: !FiberBinary.isSanitized, "a sanitizer's shadow memory is not the command's"))
    func twoGiBDownloadKeepsMemoryFlat() async throws {
        let piece = [UInt8](repeating: 0x5A, count: 1024 * 1024)
        let server = try await TestHTTPServer.start()
        server.route("GET", prefix: "/mib/") { request in
            let count = Int(request.path.dropFirst(5)) ?? 0
            return .stream(status: 200) { writer in
                for _ in 0 ..< count { try await writer.write(piece) }
            }
        }
        let directory = NSTemporaryDirectory() + "fiber-huge-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }

        /// Downloads `mib` MiB into a link to /dev/null; returns the process's peak RSS.
        func peak(downloading mib: Int) async throws -> Int {
            let path = directory + "/\(mib).bin"
            try FileManager.default.createSymbolicLink(atPath: path + ".fiberpart", withDestinationPath: "/dev/null")
            let child = try ChildProcess.spawn(FiberBinary.path, arguments: ["get", server.url("/mib/\(mib)"), "--output", path],
                                               output: directory + "/\(mib).log")
            // VmHWM is the process's own high-water mark (the kernel's ru_maxrss would count the
            // test process, whose memory the child shared until it ran the command).
            var highWater = 0
            let deadline = ContinuousClock.now + .seconds(100)
            while child.isRunning, ContinuousClock.now < deadline {
                if let mark = Self.statusBytes("VmHWM", of: child.pid) { highWater = max(highWater, mark) }
                try await Task.sleep(for: .milliseconds(5))
            }
            let succeeded = await child.waitForSuccess(timeout: .seconds(1))
            let log = (try? String(contentsOfFile: directory + "/\(mib).log", encoding: .utf8)) ?? ""
            #expect(succeeded, "\(child.exitDescription): \(log)")
            #expect(log.contains("saved \(mib >= 1024 ? "\(mib / 1024).0 GiB" : "\(mib).0 MiB")"), "\(log)")
            #expect(highWater > 0, "no sample of the process's memory")
            return highWater
        }
        let large = try await peak(downloading: 2048)
        #expect(large < 64 * 1024 * 1024, "peak RSS \(large >> 20) MiB for 2 GiB")
        await server.shutdown()
    }

    /// A memory field of a process's status (`VmRSS`, `VmHWM`), in bytes; nil once it is gone.
    static func statusBytes(_ field: String, of pid: pid_t) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix(field + ":") {
            return line.split(separator: " ").dropFirst().first.flatMap { Int($0) }.map { $0 * 1024 }
        }
        return nil
    }
}
