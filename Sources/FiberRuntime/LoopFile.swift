import CLibUV
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A file read or written through libuv's file-system calls, which run on
/// libuv's thread pool: the loop never blocks on the disk. Upload bodies
/// stream from it in 256 KiB pieces, never whole into memory, and downloads
/// are written with it.
///
/// Every call names the loop whose thread pool does the work. A file is
/// closed by `close(on:)`, or when the last reference to it goes.
public final class LoopFile: Sendable {
    /// How a file is opened.
    public enum Mode: Sendable {
        /// For reading; the file must exist.
        case reading
        /// For writing, created (mode 0644) when missing; emptied first when `truncating`.
        case writing(truncating: Bool)
    }

    /// The path it was opened from, for messages.
    public let path: String
    /// The size when opened, in bytes.
    public let size: Int
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

    /// Opens `path` (for reading unless `mode` says otherwise) and measures it.
    ///
    /// - Throws: `TransportError` with the system's reason (`ENOENT`, `EACCES`, `ENOSPC`, …) and `operation` `open`.
    public static func open(_ path: String, _ mode: Mode = .reading, on loop: EventLoop) async throws -> LoopFile {
        let flags = switch mode {
        case .reading: O_RDONLY | O_CLOEXEC
        case .writing(let truncating): O_WRONLY | O_CREAT | O_CLOEXEC | (truncating ? O_TRUNC : 0)
        }
        let fd = try await fs(on: loop, operation: "open \(path)") { req, cb in
            uv_fs_open(loop.uvLoop, req, path, flags, 0o644, cb)
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
    public static func size(of path: String, on loop: EventLoop) async throws -> Int {
        try await fs(on: loop, operation: "stat \(path)") { req, cb in
            uv_fs_stat(loop.uvLoop, req, path, cb)
        } result: { Int($0.pointee.statbuf.st_size) }
    }

    /// The file's bytes from the start, as chunks of at most `chunkSize`.
    public func chunks(on loop: EventLoop, chunkSize: Int = 64 * 1024) -> AsyncThrowingStream<[UInt8], any Error> {
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
    public func read(at offset: Int, count: Int, on loop: EventLoop) async throws -> [UInt8] {
        try await Self.read(descriptor, at: offset, count: count, on: loop)
    }

    /// Writes all of `bytes` at `offset` (a short write is continued). The bytes are
    /// read in place by a thread of libuv's pool (inside `withUnsafeBytes`), never copied.
    ///
    /// - Throws: `TransportError` with the system's reason (`ENOSPC`, `EIO`, …) and `operation` `write`.
    public func write(_ bytes: [UInt8], at offset: Int, on loop: EventLoop) async throws {
        try await writeInPlace(CollectionOfOne(bytes), at: offset, on: loop)
    }

    /// Writes `pieces` one after the other from `offset`, in one trip to libuv's pool
    /// (a download gathers the chunks that arrived into one write). Read in place, never copied.
    ///
    /// - Throws: `TransportError` with the system's reason (`ENOSPC`, `EIO`, …) and `operation` `write`.
    public func write(contentsOf pieces: [[UInt8]], at offset: Int, on loop: EventLoop) async throws {
        try await writeInPlace(pieces, at: offset, on: loop)
    }

    private func writeInPlace<Pieces: Collection & Sendable>(_ pieces: Pieces, at offset: Int, on loop: EventLoop) async throws
        where Pieces.Element: WritableBytes {
        let fd = descriptor
        let path = self.path
        let status = try await Self.onPool(loop) { () -> Int32 in
            var position = offset
            for piece in pieces {
                let status = piece.withBytes { raw -> Int32 in
                    var done = 0
                    while done < raw.count {
                        let n = pwrite(fd, raw.baseAddress! + done, raw.count - done, off_t(position + done))
                        if n < 0, errno == EINTR { continue }
                        if n < 0 { return -errno }
                        if n == 0 { return -EIO }
                        done += n
                    }
                    return 0
                }
                if status < 0 { return status }
                position += piece.count
            }
            return 0
        }
        if status < 0 { throw UVError.transportError(status, operation: "write \(path)") }
    }

    /// Runs `body` on a thread of libuv's pool for `loop` and returns its result on the loop.
    private static func onPool<T: Sendable>(_ loop: EventLoop, _ body: @escaping @Sendable () -> T) async throws -> T {
        let once = OnceContinuation<T>()
        let result = PoolResult<T>()
        try loop.execute {
            let request = UVRequest.make(UV_WORK)
            request.work = { result.value = body() }
            request.completion = { status in
                if let value = result.value, status == 0 {
                    once.resume(with: .success(value))
                } else {
                    once.resume(with: .failure(UVError.transportError(status == 0 ? UV_ECANCELED.rawValue : status, operation: "work")))
                }
            }
            let status = uv_queue_work(loop.uvLoop, request.pointer(as: uv_work_t.self), UVRequest.workCallback,
                                       UVRequest.afterWorkCallback)
            if status < 0 {
                request.discard()
                once.resume(with: .failure(UVError.transportError(status, operation: "work")))
            }
        }
        return try await once.wait()
    }

    /// Cuts or extends the file to `size` bytes.
    ///
    /// - Throws: `TransportError` with the system's reason and `operation` `truncate`.
    public func truncate(to size: Int, on loop: EventLoop) async throws {
        let fd = descriptor
        _ = try await Self.fs(on: loop, operation: "truncate \(path)") { req, cb in
            uv_fs_ftruncate(loop.uvLoop, req, uv_file(fd), Int64(size), cb)
        } result: { _ in 0 }
    }

    /// Waits until what was written is on the disk (`fsync`). A file that has no
    /// disk to reach (a device such as `/dev/null`, which answers `EINVAL`) is done at once.
    ///
    /// - Throws: `TransportError` with the system's reason and `operation` `fsync`.
    public func sync(on loop: EventLoop) async throws {
        let fd = descriptor
        do {
            _ = try await Self.fs(on: loop, operation: "fsync \(path)") { req, cb in
                uv_fs_fsync(loop.uvLoop, req, uv_file(fd), cb)
            } result: { _ in 0 }
        } catch let error as TransportError where error.codeName == "EINVAL" {
            return
        }
    }

    /// Renames `source` to `destination` in one step (on one file system), replacing it.
    ///
    /// - Throws: `TransportError` with the system's reason and `operation` `rename`.
    public static func rename(_ source: String, to destination: String, on loop: EventLoop) async throws {
        _ = try await fs(on: loop, operation: "rename \(source) to \(destination)") { req, cb in
            uv_fs_rename(loop.uvLoop, req, source, destination, cb)
        } result: { _ in 0 }
    }

    /// Removes the file at `path`; a file already gone is not an error.
    ///
    /// - Throws: `TransportError` with the system's reason and `operation` `unlink`.
    public static func remove(_ path: String, on loop: EventLoop) async throws {
        do {
            _ = try await fs(on: loop, operation: "unlink \(path)") { req, cb in
                uv_fs_unlink(loop.uvLoop, req, path, cb)
            } result: { _ in 0 }
        } catch let error as TransportError where error.codeName == "ENOENT" {
            return
        }
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
    public func close(on loop: EventLoop) async {
        guard !closed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        _ = try? await Self.fs(on: loop, operation: "close") { req, cb in
            uv_fs_close(loop.uvLoop, req, uv_file(self.descriptor), cb)
        } result: { _ in 0 }
    }

    private static func read(_ fd: Int32, at offset: Int, count: Int, on loop: EventLoop) async throws -> [UInt8] {
        // The array is made and filled by a thread of libuv's pool: the bytes land in it, no copy.
        let outcome = try await onPool(loop) { () -> Result<[UInt8], TransportError> in
            var status: Int32 = 0
            let bytes = [UInt8](unsafeUninitializedCapacity: max(1, count)) { buffer, initialized in
                while true {
                    let n = pread(fd, buffer.baseAddress!, count, off_t(offset))
                    if n < 0, errno == EINTR { continue }
                    if n < 0 { status = -errno }
                    initialized = max(0, n)
                    return
                }
            }
            return status < 0 ? .failure(UVError.transportError(status, operation: "read")) : .success(bytes)
        }
        return try outcome.get()
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

/// What a pool thread computed, read on the loop after libuv's after-work callback
/// (libuv orders the two through its own lock).
private final class PoolResult<T>: @unchecked Sendable {
    var value: T?
}
