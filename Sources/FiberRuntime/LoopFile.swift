import CLibUV
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A file opened for reading through libuv's file-system calls, which run on
/// libuv's thread pool: the loop never blocks on the disk. Upload bodies
/// stream from it in 64 KiB pieces, never whole into memory.
final class LoopFile: Sendable {
    /// The path it was opened from, for messages.
    let path: String
    /// The size when opened, in bytes.
    let size: Int
    private let descriptor: Int32
    /// Set by the first `close`: a file dropped unclosed (a body whose sending stopped
    /// half-way) is closed by `deinit` instead, so no descriptor outlives its file.
    private let closed = Atomic(false)

    private init(path: String, descriptor: Int32, size: Int) {
        self.path = path
        self.descriptor = descriptor
        self.size = size
    }

    deinit {
        if !closed.load(ordering: .acquiring) { Glibc.close(descriptor) }
    }

    /// Opens `path` for reading and measures it.
    ///
    /// - Throws: `TransportError` with the system's reason (`ENOENT`, `EACCES`, …) and `operation` `open`.
    static func open(_ path: String, on loop: EventLoop) async throws -> LoopFile {
        let fd = try await fs(on: loop, operation: "open \(path)") { req, cb in
            uv_fs_open(loop.uvLoop, req, path, O_RDONLY | O_CLOEXEC, 0, cb)
        } result: { Int($0.pointee.result) }
        do {
            let size = try await fs(on: loop, operation: "fstat \(path)") { req, cb in
                uv_fs_fstat(loop.uvLoop, req, uv_file(fd), cb)
            } result: { Int($0.pointee.statbuf.st_size) }
            return LoopFile(path: path, descriptor: Int32(fd), size: size)
        } catch {
            await LoopFile(path: path, descriptor: Int32(fd), size: 0).close(on: loop)
            throw error
        }
    }

    /// The size of the file at `path`, without opening it.
    ///
    /// - Throws: `TransportError` with the system's reason and `operation` `stat`.
    static func size(of path: String, on loop: EventLoop) async throws -> Int {
        try await fs(on: loop, operation: "stat \(path)") { req, cb in
            uv_fs_stat(loop.uvLoop, req, path, cb)
        } result: { Int($0.pointee.statbuf.st_size) }
    }

    /// The file's bytes from the start, as chunks of at most `chunkSize`.
    func chunks(on loop: EventLoop, chunkSize: Int = 64 * 1024) -> AsyncThrowingStream<[UInt8], any Error> {
        var offset = 0
        return AsyncThrowingStream {
            let chunk = try await self.read(at: offset, count: chunkSize, on: loop)
            offset += chunk.count
            return chunk.isEmpty ? nil : chunk
        }
    }

    /// Up to `count` bytes at `offset`; empty at the end of the file.
    ///
    /// - Throws: `TransportError` with the system's reason and `operation` `read`.
    func read(at offset: Int, count: Int, on loop: EventLoop) async throws -> [UInt8] {
        try await Self.read(descriptor, at: offset, count: count, on: loop)
    }

    /// The whole file at `path`, for small files (certificates, keys).
    ///
    /// - Throws: `TransportError` as `open`, or `.other` when the file is over `maxBytes`.
    static func readAll(_ path: String, on loop: EventLoop, maxBytes: Int = 16 * 1024 * 1024) async throws -> [UInt8] {
        let file = try await open(path, on: loop)
        do {
            guard file.size <= maxBytes else {
                throw TransportError(.other, operation: "read \(path)", systemMessage: "larger than \(maxBytes) bytes")
            }
            var bytes: [UInt8] = []
            bytes.reserveCapacity(file.size)
            for try await chunk in file.chunks(on: loop) { bytes += chunk }
            await file.close(on: loop)
            return bytes
        } catch {
            await file.close(on: loop)
            throw error
        }
    }

    /// Closes the file; errors are ignored (nothing useful can follow them).
    func close(on loop: EventLoop) async {
        guard !closed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        _ = try? await Self.fs(on: loop, operation: "close") { req, cb in
            uv_fs_close(loop.uvLoop, req, uv_file(self.descriptor), cb)
        } result: { _ in 0 }
    }

    private static func read(_ fd: Int32, at offset: Int, count: Int, on loop: EventLoop) async throws -> [UInt8] {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: count, alignment: 1)
        defer { buffer.deallocate() }
        nonisolated(unsafe) let base = buffer.baseAddress!
        let n = try await fs(on: loop, operation: "read") { req, cb in
            var buf = uv_buf_init(base.assumingMemoryBound(to: CChar.self), UInt32(count))
            return uv_fs_read(loop.uvLoop, req, uv_file(fd), &buf, 1, Int64(offset), cb)
        } result: { Int($0.pointee.result) }
        return Array(UnsafeRawBufferPointer(start: base, count: n))
    }

    /// Runs one libuv file-system request on `loop` and returns what `result` reads from it.
    private static func fs<T: Sendable>(
        on loop: EventLoop, operation: String,
        _ submit: @escaping @Sendable (UnsafeMutablePointer<uv_fs_t>, uv_fs_cb) -> Int32,
        result: @escaping @Sendable (UnsafeMutablePointer<uv_fs_t>) -> T
    ) async throws -> T {
        let once = OnceContinuation<T>()
        try loop.execute {
            let request = UVRequest.make(UV_FS)
            request.fsCompletion = { req in
                let status = req.pointee.result
                once.resume(with: status < 0
                    ? .failure(UVError.transportError(Int32(status), operation: operation))
                    : .success(result(req)))
            }
            let status = submit(request.pointer(as: uv_fs_t.self), UVRequest.fsCallback)
            if status < 0 {
                request.discard()
                once.resume(with: .failure(UVError.transportError(status, operation: operation)))
            }
        }
        return try await once.wait()
    }
}
