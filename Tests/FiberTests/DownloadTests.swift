import Fiber
import FiberRuntime
import FiberTesting
import Foundation
import Testing

/// A resource served with `Range` and `If-Range` as RFC 9110 says, which a test
/// can change, slow down or break.
final class RangeResource: Sendable {
    struct Shape: Sendable {
        var content: [UInt8]
        var etag = "\"v1\""
        /// Answer 200 with the whole body whatever the request asks.
        var ignoresRanges = false
        /// Cut the first response after this many body bytes (a killed connection).
        var cutFirstAfter: Int?
        /// Send the first whole-file answer without a length, and stop after this many
        /// bytes until `release()` (or 10 s): a transfer caught part-way, whatever the load.
        var stallAfter: Int?
    }

    let shape: Locked<Shape>
    let served = Locked<[String?]>([])  // the Range field of each request
    private let released = Locked(false)

    func release() { released.withLock { $0 = true } }

    init(_ content: [UInt8]) { shape = Locked(Shape(content: content)) }

    func respond(_ request: TestRequest) -> TestResponse {
        let s = shape.withLock { $0 }
        let first = served.withLock { $0.append(request.header("Range")); return $0.count == 1 }
        var response: TestResponse
        let count = s.content.count
        if !s.ignoresRanges, let range = request.header("Range"), range.hasPrefix("bytes="), range.hasSuffix("-"),
           let start = Int(range.dropFirst(6).dropLast()), request.header("If-Range").map({ $0 == s.etag }) ?? true {
            if start >= count {
                response = TestResponse(status: 416, headers: ["Content-Range": "bytes */\(count)"])
            } else {
                response = .bytes(Array(s.content[start...]), status: 206,
                                  headers: ["Content-Range": "bytes \(start)-\(count - 1)/\(count)"])
            }
        } else if let stall = s.stallAfter {
            let released = self.released
            response = .stream(status: 200) { writer in
                try await writer.write(Array(s.content[..<stall]))
                let clock = ContinuousClock()
                let deadline = clock.now + .seconds(10)
                while !released.withLock({ $0 }), clock.now < deadline { try await Task.sleep(for: .milliseconds(2)) }
                try await writer.write(Array(s.content[stall...]))
            }
        } else {
            response = .bytes(s.content)
        }
        response = response.withHeader("ETag", s.etag)
        if first, let cut = s.cutFirstAfter { response = response.closingMidBody(after: cut) }
        return response
    }
}

@Suite("Downloads to files", .timeLimit(.minutes(1)))
struct DownloadTests {
    /// A server with `resource` at `/file` and `/mirror/file`, a client, a downloader and a fresh directory.
    static func withDownloads(_ resource: RangeResource, limit: Int = 4, readIdleTimeout: Duration = .seconds(10),
                              _ body: (FiberDownloader, TestHTTPServer, String) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fiber-download-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await withLiveServer(configure: { $0.readIdleTimeout = readIdleTimeout }) { server, transport in
            server.route("GET", "/file") { resource.respond($0) }
            server.route("GET", "/mirror/file") { resource.respond($0) }
            let fiber = Fiber(server.baseURL) { $0.transport = transport }
            try await body(FiberDownloader(fiber, maxConcurrentPerHost: limit), server, directory)
        }
    }

    static func contents(_ path: String) -> [UInt8]? {
        FileManager.default.contents(atPath: path).map { [UInt8]($0) }
    }

    /// Whether the file at `path` holds exactly `bytes` (a Bool, so a failure prints no bytes).
    static func holds(_ path: String, _ bytes: [UInt8]) -> Bool {
        contents(path) == bytes
    }

    static func leftovers(in directory: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter { $0.contains(".fiberpart") }
    }

    @Test func downloadsWholeVerifiedAndInPlace() async throws {
        let content = patternedBytes(3 * 1024 * 1024 + 11, seed: 1)
        let resource = RangeResource(content)
        try await Self.withDownloads(resource) { downloader, server, directory in
            let destination = directory + "/out.bin"
            let progress = ProgressRecorder()
            let task = await downloader.download(from: "/file", to: destination, expectedSHA256: sha256Hex(content),
                                                 progress: progress.record)
            let file = try await task.value
            #expect(file.path == destination && file.bytes == content.count && file.resumedFrom == 0)
            #expect(file.sha256 == sha256Hex(content))
            #expect(Self.holds(destination, content))
            #expect(Self.leftovers(in: directory).isEmpty)
            #expect(server.lastRequest?.header("Accept-Encoding") == "identity")
            #expect(progress.reports.last?.bytes == content.count && progress.reports.last?.total == content.count)
            #expect(await downloader.count == 0)
        }
    }

    @Test func aChecksumMismatchLeavesNothing() async throws {
        let resource = RangeResource(patternedBytes(100_000, seed: 2))
        try await Self.withDownloads(resource) { downloader, _, directory in
            let destination = directory + "/out.bin"
            let task = await downloader.download(from: "/file", to: destination, expectedSHA256: String(repeating: "0", count: 64))
            await expectFiberError({ if case .networkError(let f as TransferFailure) = $0 { f.kind == .checksumMismatch } else { false } }) {
                _ = try await task.value
            }
            #expect(!FileManager.default.fileExists(atPath: destination))
            #expect(Self.leftovers(in: directory).isEmpty)
        }
    }

    @Test func anUnwritableDestinationFailsNamingIt() async throws {
        let resource = RangeResource(patternedBytes(100_000, seed: 3))
        try await Self.withDownloads(resource) { downloader, server, directory in
            let destination = directory + "/missing-directory/out.bin"
            let task = await downloader.download(from: "/file", to: destination)
            await expectFiberError({ error in
                guard case .networkError(let failure as TransferFailure) = error else { return false }
                return failure.kind == .destination && "\(failure)".contains("missing-directory")
            }) {
                _ = try await task.value
            }
            // The connection was not left leased: the client goes on.
            let next = try await downloader.download(from: "/file", to: directory + "/ok.bin").value
            #expect(next.bytes == 100_000)
            #expect(server.requestCount == 2)
        }
    }

    /// A full disk (the partial file is a link to /dev/full, whose writes fail with
    /// ENOSPC) fails the download typed, naming the file, and leaves nothing.
    @Test func aFullDiskFailsTypedAndLeavesNothing() async throws {
        let resource = RangeResource(patternedBytes(300_000, seed: 14))
        try await Self.withDownloads(resource) { downloader, _, directory in
            let destination = directory + "/out.bin"
            try FileManager.default.createSymbolicLink(atPath: destination + ".fiberpart", withDestinationPath: "/dev/full")
            let task = await downloader.download(from: "/file", to: destination)
            await expectFiberError({ error in
                guard case .networkError(let failure as TransferFailure) = error else { return false }
                return failure.kind == .destination && "\(failure)".contains("out.bin.fiberpart")
                    && "\(failure)".lowercased().contains("no space")
            }) {
                _ = try await task.value
            }
            #expect(!FileManager.default.fileExists(atPath: destination))
            #expect(Self.leftovers(in: directory).isEmpty)
            #expect(resource.served.withLock { $0.count } == 1, "a disk failure is not retried")
        }
    }

    @Test func aStatusThatIsNotAFileIsAnHTTPError() async throws {
        try await Self.withDownloads(RangeResource([1])) { downloader, _, directory in
            let task = await downloader.download(from: "/nothing-here", to: directory + "/out.bin")
            await expectFiberError({ if case .httpError(404, _, _) = $0 { true } else { false } }) { _ = try await task.value }
            #expect(Self.leftovers(in: directory).isEmpty)
        }
    }

    /// The connection dies mid-body: the download resumes where it stopped, with
    /// `Range` and the `ETag` as `If-Range`, and the file is whole.
    @Test func resumesAfterAKilledConnection() async throws {
        let content = patternedBytes(2 * 1024 * 1024, seed: 4)
        let resource = RangeResource(content)
        resource.shape.withLock { $0.cutFirstAfter = 700_000 }
        try await Self.withDownloads(resource) { downloader, server, directory in
            let destination = directory + "/out.bin"
            let file = try await downloader.download(from: "/file", to: destination, expectedSHA256: sha256Hex(content)).value
            #expect(Self.holds(destination, content))
            let ranges = resource.served.withLock { $0 }
            #expect(ranges.count == 2)
            let resumedAt = try #require(ranges.last??.dropFirst(6).dropLast()).flatMap { Int($0) }
            #expect(resumedAt.map { $0 > 0 && $0 <= 700_000 } == true, "\(ranges)")
            #expect(server.lastRequest?.header("If-Range") == "\"v1\"")
            #expect(file.resumedFrom == resumedAt)
        }
    }

    /// The server goes silent mid-body: the read timeout ends that response, and the
    /// download resumes from the bytes it has, with `If-Range`, to the whole file.
    @Test func resumesAfterAServerGoesSilent() async throws {
        let content = patternedBytes(400_000, seed: 17)
        let resource = RangeResource(content)
        resource.shape.withLock { $0.stallAfter = 150_000 }
        defer { resource.release() }
        try await Self.withDownloads(resource, readIdleTimeout: .milliseconds(300)) { downloader, _, directory in
            let file = try await downloader.download(from: "/file", to: directory + "/out.bin").value
            #expect(file.resumedFrom == 150_000)
            #expect(Self.holds(directory + "/out.bin", content))
            #expect(resource.served.withLock { $0 } == [nil, "bytes=150000-"])
        }
    }

    /// A 206 whose `Content-Range` promises a larger whole than the body brings (the
    /// connection's framing being complete): the download fails instead of putting a
    /// short file in place.
    @Test func aBodyShortOfItsDeclaredTotalIsNotPutInPlace() async throws {
        try await Self.withDownloads(RangeResource([1])) { downloader, server, directory in
            server.route("GET", "/liar") { _ in
                .bytes(patternedBytes(100, seed: 18), status: 206, headers: ["Content-Range": "bytes 0-99/1000", "ETag": "\"l\""])
            }
            let task = await downloader.download(from: "/liar", to: directory + "/out.bin")
            await expectFiberError({ error in
                guard case .networkError(let failure as TransferFailure) = error else { return false }
                return failure.kind == .malformedResponse && failure.detail.contains("100 of 1000")
            }) {
                _ = try await task.value
            }
            #expect(!FileManager.default.fileExists(atPath: directory + "/out.bin"))
            #expect(Self.leftovers(in: directory).isEmpty)
        }
    }

    /// Paused half-way, the state survives JSON, and resumes from another URL of the same resource.
    @Test func pausesAndResumesFromAnotherURL() async throws {
        let content = patternedBytes(1024 * 1024, seed: 5)
        let resource = RangeResource(content)
        resource.shape.withLock { $0.stallAfter = 300_000 }
        try await Self.withDownloads(resource) { downloader, _, directory in
            let destination = directory + "/out.bin"
            let task = await downloader.download(from: "/file", to: destination)
            try await waitUntil("the bytes before the stall on disk") { task.resumeState.bytesOnDisk == 300_000 }
            let paused = await task.pause()
            resource.release()
            await expectFiberError({ if case .cancelled = $0 { true } else { false } }) { _ = try await task.value }
            #expect(paused.bytesOnDisk == 300_000)
            #expect(paused.validator == "\"v1\"" && paused.totalBytes == nil)
            #expect(FileManager.default.fileExists(atPath: paused.partialPath))
            #expect(!FileManager.default.fileExists(atPath: destination))
            let saved = try JSONDecoder().decode(DownloadResumeState.self, from: JSONEncoder().encode(paused))
            #expect(saved == paused)

            resource.shape.withLock { $0.stallAfter = nil }
            let mirror = try await downloader.resume(saved, from: "/mirror/file", expectedSHA256: sha256Hex(content)).value
            #expect(Self.holds(destination, content))
            #expect(mirror.resumedFrom == paused.bytesOnDisk)
            #expect(resource.served.withLock { $0.last } == "bytes=\(paused.bytesOnDisk)-")
            #expect(Self.leftovers(in: directory).isEmpty)
        }
    }

    /// Each answer to a resume that is not the range asked for ends in the right file, never a corrupt one.
    @Test(arguments: ["200 instead of 206", "validator changed", "416 when whole", "416 for a shorter file"])
    func aResumeTheServerDoesNotHonourEndsRight(answer: String) async throws {
        let old = patternedBytes(500_000, seed: 6)
        let resource = RangeResource(old)
        try await Self.withDownloads(resource) { downloader, _, directory in
            let destination = directory + "/out.bin"
            var state = DownloadResumeState(url: "/file", destination: destination, bytesOnDisk: 200_000,
                                            validator: "\"v1\"", totalBytes: old.count)
            var expected = old
            switch answer {
            case "200 instead of 206": resource.shape.withLock { $0.ignoresRanges = true }
            case "validator changed":
                expected = patternedBytes(600_000, seed: 7)
                resource.shape.withLock { $0.content = expected; $0.etag = "\"v2\"" }
            case "416 when whole": state.bytesOnDisk = old.count
            default:
                expected = patternedBytes(150_000, seed: 8)
                resource.shape.withLock { $0.content = expected; $0.etag = "\"v1\"" }
            }
            try Data(old[..<state.bytesOnDisk]).write(to: URL(fileURLWithPath: state.partialPath))
            let file = try await downloader.resume(state, expectedSHA256: sha256Hex(expected)).value
            #expect(Self.holds(destination, expected), "\(answer)")
            #expect(file.bytes == expected.count)
            #expect(Self.leftovers(in: directory).isEmpty)
        }
    }

    /// The partial file on disk disagrees with the state: shorter resumes from its
    /// length, longer is cut to the state's, missing starts from zero.
    @Test(arguments: [150_000, 450_000, -1])
    func aPartialFileOfAnotherLengthIsReconciled(onDisk: Int) async throws {
        let content = patternedBytes(400_000, seed: 9)
        let resource = RangeResource(content)
        try await Self.withDownloads(resource) { downloader, _, directory in
            let destination = directory + "/out.bin"
            let state = DownloadResumeState(url: "/file", destination: destination, bytesOnDisk: 200_000,
                                            validator: "\"v1\"", totalBytes: content.count)
            if onDisk >= 0 {
                // Past the state's count the bytes are wrong: they must be cut, not kept.
                var bytes = Array(content[..<min(onDisk, 200_000)])
                if onDisk > 200_000 { bytes += [UInt8](repeating: 0xEE, count: onDisk - 200_000) }
                try Data(bytes).write(to: URL(fileURLWithPath: state.partialPath))
            }
            _ = try await downloader.resume(state).value
            #expect(Self.holds(destination, content))
            let expectedRange: String? = onDisk < 0 ? nil : "bytes=\(min(onDisk, 200_000))-"
            #expect(resource.served.withLock { $0 } == [expectedRange])
        }
    }

    @Test func aStateWithoutAValidatorStartsFromZero() async throws {
        let content = patternedBytes(50_000, seed: 10)
        let resource = RangeResource(content)
        try await Self.withDownloads(resource) { downloader, _, directory in
            let state = DownloadResumeState(url: "/file", destination: directory + "/out.bin", bytesOnDisk: 10_000,
                                            validator: nil, totalBytes: nil)
            try Data(repeating: 0xEE, count: 10_000).write(to: URL(fileURLWithPath: state.partialPath))
            _ = try await downloader.resume(state).value
            #expect(Self.holds(state.destination, content))
            #expect(resource.served.withLock { $0 } == [nil])
        }
    }

    @Test func cancelAndCancelAllLeaveNothing() async throws {
        let resource = RangeResource(patternedBytes(2 * 1024 * 1024, seed: 11))
        resource.shape.withLock { $0.stallAfter = 100_000 }
        defer { resource.release() }
        try await Self.withDownloads(resource, limit: 2) { downloader, _, directory in
            let one = await downloader.download(from: "/file", to: directory + "/one.bin")
            try await waitUntil("bytes on disk") { one.resumeState.bytesOnDisk > 0 }
            one.cancel()
            await expectFiberError({ if case .cancelled = $0 { true } else { false } }) { _ = try await one.value }

            let many = await (0..<4).asyncMap { await downloader.download(from: "/file", to: directory + "/\($0).bin") }
            try await waitUntil("two running") {
                many[0].resumeState.bytesOnDisk == 100_000 && many[1].resumeState.bytesOnDisk == 100_000
            }
            #expect(await downloader.count == 4)
            await downloader.cancelAll()
            for task in many {
                await expectFiberError({ if case .cancelled = $0 { true } else { false } }) { _ = try await task.value }
            }
            #expect(await downloader.count == 0)
            try await waitUntil("no partial files") { Self.leftovers(in: directory).isEmpty }
        }
    }

    /// A download paused while it waits for its host's turn has nothing on disk; its
    /// state resumes it as a new download once there is room.
    @Test func aDownloadPausedInTheQueueResumesFromZero() async throws {
        let content = patternedBytes(200_000, seed: 16)
        let resource = RangeResource(content)
        resource.shape.withLock { $0.stallAfter = 50_000 }
        try await Self.withDownloads(resource, limit: 1) { downloader, _, directory in
            let running = await downloader.download(from: "/file", to: directory + "/a.bin")
            try await waitUntil("the first one running") { running.resumeState.bytesOnDisk == 50_000 }
            let waiting = await downloader.download(from: "/file", to: directory + "/b.bin")
            let state = await waiting.pause()
            #expect(state.bytesOnDisk == 0 && state.validator == nil)
            await expectFiberError({ if case .cancelled = $0 { true } else { false } }) { _ = try await waiting.value }
            #expect(await downloader.count == 1)
            resource.release()
            _ = try await running.value
            resource.shape.withLock { $0.stallAfter = nil }
            _ = try await downloader.resume(state).value
            #expect(Self.holds(directory + "/b.bin", content))
        }
    }

    /// At most `limit` downloads of a host run at once; the rest wait their turn and finish.
    @Test func aHostRunsAtMostItsLimit() async throws {
        let content = patternedBytes(300_000, seed: 12)
        try await Self.withDownloads(RangeResource(content), limit: 2) { downloader, server, directory in
            let inFlight = Locked((now: 0, most: 0))
            server.route("GET", "/slow") { _ in
                .stream(status: 200) { writer in
                    inFlight.withLock { $0.now += 1; $0.most = max($0.most, $0.now) }
                    defer { inFlight.withLock { $0.now -= 1 } }
                    try await writer.write(Array(content[..<1000]))
                    // Each waits until two are in flight (or 3 s pass): a third would show, one alone would not.
                    let deadline = ContinuousClock.now + .seconds(3)
                    while inFlight.withLock({ $0.most }) < 2, ContinuousClock.now < deadline {
                        try await Task.sleep(for: .milliseconds(2))
                    }
                    try await Task.sleep(for: .milliseconds(20))
                    try await writer.write(Array(content[1000...]))
                }
            }
            let tasks = await (0..<5).asyncMap { await downloader.download(from: "/slow", to: directory + "/\($0).bin") }
            for task in tasks { _ = try await task.value }
            #expect(inFlight.withLock { $0.most } == 2)
            for i in 0..<5 { #expect(Self.holds(directory + "/\(i).bin", content)) }
        }
    }

    /// A download killed with its process (here: its task stopped without clean-up,
    /// as a crash leaves it) is resumed by the next download of the same destination.
    @Test func aDownloadLeftBehindIsResumedByTheNext() async throws {
        let content = patternedBytes(600_000, seed: 13)
        let resource = RangeResource(content)
        try await Self.withDownloads(resource) { downloader, _, directory in
            let destination = directory + "/out.bin"
            // What a killed process leaves: the partial file and the state beside it.
            let state = DownloadResumeState(url: "/file", destination: destination, bytesOnDisk: 0, validator: "\"v1\"",
                                            totalBytes: content.count)
            try Data(content[..<250_000]).write(to: URL(fileURLWithPath: state.partialPath))
            try JSONEncoder().encode(state).write(to: URL(fileURLWithPath: state.statePath))
            let file = try await downloader.download(from: "/file", to: destination).value
            #expect(file.resumedFrom == 250_000)
            #expect(Self.holds(destination, content))
            #expect(Self.leftovers(in: directory).isEmpty)
        }
    }
}

extension Sequence where Element: Sendable {
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var out: [T] = []
        for element in self { out.append(try await transform(element)) }
        return out
    }
}
