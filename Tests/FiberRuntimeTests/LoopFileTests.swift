import FiberRuntime
import FiberTesting
import Foundation
import Testing

/// Files read and written through libuv's pool: the public `LoopFile` calls on real files.
@Suite("Files on a loop", .timeLimit(.minutes(1)))
struct LoopFileTests {
    static func withLoop(_ body: (EventLoop, String) async throws -> Void) async throws {
        let group = EventLoopGroup(loopCount: 1, name: "loop-file")
        let directory = NSTemporaryDirectory() + "loop-file-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        do {
            try await body(group.loops[0], directory)
            try await group.shutdown()
        } catch {
            try? await group.shutdown()
            throw error
        }
    }

    @Test func writesAtOffsetsInAnyOrderAndReadsBack() async throws {
        try await Self.withLoop { loop, directory in
            let path = directory + "/f.bin"
            let file = try await LoopFile.open(path, .writing(truncating: true), on: loop)
            let first = patternedBytes(100_000, seed: 1)
            let second = patternedBytes(70_000, seed: 2)
            try await file.write(second, at: first.count, on: loop)
            try await file.write(contentsOf: [Array(first[..<40_000]), Array(first[40_000...])], at: 0, on: loop)
            try await file.sync(on: loop)
            await file.close(on: loop)
            #expect(try await LoopFile.size(of: path, on: loop) == first.count + second.count)
            let reader = try await LoopFile.open(path, on: loop)
            var all: [UInt8] = []
            for try await chunk in reader.chunks(on: loop, chunkSize: 33_000) { all += chunk }
            await reader.close(on: loop)
            #expect(all.elementsEqual(first + second))
        }
    }

    @Test func truncatesRenamesAndRemoves() async throws {
        try await Self.withLoop { loop, directory in
            let path = directory + "/f.bin"
            let file = try await LoopFile.open(path, .writing(truncating: false), on: loop)
            try await file.write(patternedBytes(5000), at: 0, on: loop)
            try await file.truncate(to: 1234, on: loop)
            await file.close(on: loop)
            await file.close(on: loop)  // a second close is harmless
            #expect(try await LoopFile.size(of: path, on: loop) == 1234)
            // Opening for writing without truncating keeps the bytes; with it, empties the file.
            let kept = try await LoopFile.open(path, .writing(truncating: false), on: loop)
            #expect(kept.size == 1234)
            let emptied = try await LoopFile.open(path, .writing(truncating: true), on: loop)
            #expect(emptied.size == 0)
            try await LoopFile.rename(path, to: directory + "/g.bin", on: loop)
            #expect(!FileManager.default.fileExists(atPath: path))
            try await LoopFile.remove(directory + "/g.bin", on: loop)
            try await LoopFile.remove(directory + "/g.bin", on: loop)  // already gone: not an error
            #expect(!FileManager.default.fileExists(atPath: directory + "/g.bin"))
        }
    }

    @Test func failuresAreTypedWithThePath() async throws {
        try await Self.withLoop { loop, directory in
            let missing = directory + "/no/such/file"
            await #expect(throws: TransportError.self) { _ = try await LoopFile.open(missing, on: loop) }
            await #expect(throws: TransportError.self) { _ = try await LoopFile.size(of: missing, on: loop) }
            await #expect(throws: TransportError.self) { try await LoopFile.rename(missing, to: directory + "/x", on: loop) }
            // /dev/full refuses every write with ENOSPC: a full disk.
            let full = try await LoopFile.open("/dev/full", .writing(truncating: false), on: loop)
            do {
                try await full.write([1, 2, 3], at: 0, on: loop)
                Issue.record("a write to /dev/full succeeded")
            } catch let error as TransportError {
                #expect(error.codeName == "ENOSPC" && error.operation.contains("/dev/full"), "\(error)")
            }
            await full.close(on: loop)
            // /dev/null has nothing to flush: sync succeeds.
            let null = try await LoopFile.open("/dev/null", .writing(truncating: false), on: loop)
            try await null.write([1], at: 0, on: loop)
            try await null.sync(on: loop)
            await null.close(on: loop)
        }
    }
}
