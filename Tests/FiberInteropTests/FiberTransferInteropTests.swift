import Fiber
import FiberRuntime
import FiberTesting
import Foundation
import Testing

/// Fiber's uploads and downloads against a real nginx: its static files answer
/// `Range` and `If-Range` with their own strong `ETag`s, and its WebDAV module
/// stores what a client uploads.
@Suite(.serialized, .timeLimit(.minutes(2)),
       .enabled(if: NginxServer.isInstalled, "nginx is not installed at /usr/sbin/nginx (Scripts/setup installs it)"))
struct FiberTransferInteropTests {
    static let server = """
        location /files/ { }
        location /slow/ { alias {{ROOT}}/files/; limit_rate 1m; }
        location /store/ { dav_methods PUT; create_full_put_path on; client_max_body_size 0; }
        """

    static let binary = randomBytes(count: 6 * 1024 * 1024 + 321, seed: 77)

    static func withFiber(_ body: (NginxServer, Fiber, String) async throws -> Void) async throws {
        let directory = NSTemporaryDirectory() + "fiber-transfer-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await withNginx(server: server, prepare: { try write(binary, to: $0 + "/files/big.bin") }) { nginx in
            let group = EventLoopGroup(loopCount: 1, name: "transfer-interop")
            let transport = HTTPTransport(eventLoopGroup: group)
            let fiber = Fiber(nginx.url("")) { $0.transport = transport }
            do {
                try await body(nginx, fiber, directory)
                await transport.shutdown()
                try await group.shutdown()
            } catch {
                await transport.shutdown()
                try? await group.shutdown()
                throw error
            }
        }
    }

    static func holds(_ path: String, _ bytes: [UInt8]) -> Bool {
        FileManager.default.contents(atPath: path).map { $0.elementsEqual(bytes) } ?? false
    }

    /// Paused part-way through a rate-limited file, resumed with nginx's `ETag` as `If-Range`: whole and byte-exact.
    @Test func pauseAndResumeAgainstNginx() async throws {
        try await Self.withFiber { _, fiber, directory in
            let downloader = FiberDownloader(fiber)
            let destination = directory + "/big.bin"
            let task = await downloader.download(from: "/slow/big.bin", to: destination)
            try await waitUntil("part of the file on disk") { task.resumeState.bytesOnDisk > 512 * 1024 }
            let state = await task.pause()
            #expect(state.validator?.hasPrefix("\"") == true, "nginx's ETag: \(state.validator ?? "none")")
            #expect(state.bytesOnDisk > 0 && state.bytesOnDisk < Self.binary.count)
            let file = try await downloader.resume(state, from: "/files/big.bin").value
            #expect(file.resumedFrom == state.bytesOnDisk)
            #expect(Self.holds(destination, Self.binary))
        }
    }

    /// The file changes on the server between pause and resume: nginx's new `ETag`
    /// fails the `If-Range`, it answers 200, and the download starts again: the new file, not a splice.
    @Test func aChangedFileIsDownloadedAnew() async throws {
        try await Self.withFiber { nginx, fiber, directory in
            let downloader = FiberDownloader(fiber)
            let destination = directory + "/big.bin"
            let task = await downloader.download(from: "/slow/big.bin", to: destination)
            try await waitUntil("part of the file on disk") { task.resumeState.bytesOnDisk > 256 * 1024 }
            let state = await task.pause()
            let changed = randomBytes(count: 2 * 1024 * 1024 + 5, seed: 78)
            try write(changed, to: nginx.file("files/big.bin"))
            let file = try await downloader.resume(state, from: "/files/big.bin").value
            #expect(file.resumedFrom == 0)
            #expect(Self.holds(destination, changed))
        }
    }

    /// A file and a multipart form uploaded through Fiber, stored by nginx byte for byte.
    @Test func uploadsAFileThatNginxStores() async throws {
        try await Self.withFiber { nginx, fiber, directory in
            let source = directory + "/source.bin"
            try write(Self.binary, to: source)
            let response = try await fiber.upload("/store/up.bin", fileAt: source)
            #expect(response.statusCode == 201, "\(response.statusCode)")
            #expect(Self.holds(nginx.file("store/up.bin"), Self.binary))
        }
    }
}
