import CLibUV
#if canImport(Glibc)
import Glibc
#endif

/// A connected byte stream (TCP or Unix domain socket), owned by an actor
/// pinned to its event loop.
///
/// Reads arrive as byte arrays through `read()` or `inbound`, queued in a
/// `BackpressuredBuffer` made on first use: when the consumer falls behind by
/// `readHighWatermark` bytes the socket stops being read until it catches up.
/// A protocol parser on the stream's loop can take the bytes in place
/// instead (`setInPlaceReader`). Writes try `uv_try_write` first and queue only
/// what the kernel did not take, completing when it has been written.
///
/// Lifecycle: open → (optionally) output shut down with `shutdownOutput()` →
/// closed by `close()`, by the loop's shutdown, or when the last reference
/// goes away. After close, reads and writes throw `TransportError` `.closed`
/// (`.eventLoopShutdown` when the loop closed it).
public actor SocketStream: LoopIsolated {
    /// The loop whose thread runs this stream.
    public nonisolated let loop: EventLoop
    /// The peer's address (nil for Unix sockets).
    public nonisolated let remoteAddress: SocketAddress?

    let handle: UVHandle
    private let readWatermarks: (low: Int, high: Int)
    /// Whether the peer may still send: reading stops at the end or a failure.
    var input = Input.open
    private var reader = Reader.buffered(nil)
    var closeReason: TransportError?
    /// Set once TLS starts: reads are decrypted and writes encrypted through it.
    var tls: TLSEngine?
    /// The caller of `startTLS`, until the handshake ends.
    var tlsHandshake: OnceContinuation<Void>?

    public nonisolated var unownedExecutor: UnownedSerialExecutor { loop.executor }

    /// The peer's side of the stream.
    enum Input {
        case open
        /// The peer finished sending.
        case ended
        /// Reading failed.
        case failed(TransportError)

        var isOpen: Bool { if case .open = self { true } else { false } }
    }

    /// The queue of the buffered reader.
    typealias ReadQueue = BackpressuredBuffer<[UInt8], any Error>

    /// Who takes the stream's bytes.
    private enum Reader {
        /// Bytes are copied into the queue until `read()` takes them. The queue
        /// is made when the first bytes or the first `read()` come: most streams
        /// (HTTP, WebSocket) go in place at once and never need one.
        case buffered(ReadQueue?)
        /// Every read goes to this closure synchronously, in place (the HTTP/1.1
        /// parser's path); `read()` refuses.
        case inPlace((InPlaceRead) -> Void)
    }

    /// Adopts a connected stream handle. Call on `handle.loop`.
    init(adopting handle: UVHandle, remoteAddress: SocketAddress?, options: SocketOptions) {
        self.loop = handle.loop
        self.handle = handle
        self.remoteAddress = remoteAddress
        self.readWatermarks = (options.readLowWatermark, options.readHighWatermark)
        handle.onRead = { [weak self] status, bytes in
            // The loop's read buffer, valid only during this call; the closure runs synchronously on the loop.
            self?.onLoop((status, bytes)) { me, read in me.didRead(status: read.0, bytes: read.1) }
        }
        handle.onClose = { [weak self] in
            self?.assumeIsolated { $0.didClose() }
        }
        uv_read_start(handle.stream, UVHandle.allocCallback, UVHandle.readCallback)
    }

    isolated deinit {
        handle.close()
    }

    /// True until the stream is closed (by either side's `close`, an error, or loop shutdown).
    public var isOpen: Bool { closeReason == nil }

    // MARK: Reading

    /// The next bytes from the peer, or nil once the peer has finished sending.
    ///
    /// - Throws: `TransportError` (`.connectionReset`, `.closed`, …) when the
    ///   stream failed or was closed, once the bytes queued before are taken;
    ///   `.other` while another task waits in `read()` or after
    ///   `setInPlaceReader`; `CancellationError` if the task is cancelled
    ///   while waiting (the stream stays usable and no bytes are lost).
    public func read() async throws -> [UInt8]? {
        guard let queue = readQueue() else { throw Self.readsGoInPlace }
        return try await queue.next()
    }

    private static let readsGoInPlace = TransportError(.other, operation: "read",
                                                       systemMessage: "this stream's bytes go to an in-place reader")

    /// The buffered reader's queue, made now if needed; nil once reads go in place.
    private func readQueue() -> ReadQueue? {
        guard case .buffered(let existing) = reader else { return nil }
        if let existing { return existing }
        let queue = ReadQueue(lowWatermark: readWatermarks.low, highWatermark: readWatermarks.high,
                              whenCancelled: CancellationError(),
                              whenReadTwice: TransportError(.other, operation: "read",
                                                            systemMessage: "another task is already reading this stream"))
        queue.controlReading(on: loop) { [weak self] reading in
            self?.assumeIsolated { $0.setBufferedReading(reading) }
        }
        // What happened before the queue was made: the end first, as a reader would have seen it.
        switch input {
        case .ended: queue.finish()
        case .failed(let error): queue.finish(error)
        case .open: if let closeReason { queue.finish(closeReason.with(operation: "read")) }
        }
        reader = .buffered(queue)
        return queue
    }

    /// The queue when it exists (nil before the first bytes or `read()`, and once reads go in place).
    var existingReadQueue: ReadQueue? {
        if case .buffered(let queue) = reader { queue } else { nil }
    }

    /// Takes what the buffered reader had queued and not read, to hand it on.
    func takeQueuedReads() -> [[UInt8]] {
        existingReadQueue?.takeQueued() ?? []
    }

    /// The stream's bytes as an `AsyncSequence`; it ends when the peer finishes sending.
    public nonisolated var inbound: Inbound { Inbound(stream: self) }

    /// Reads until the peer finishes sending, and returns everything.
    ///
    /// - Throws: as `read()`, or `TransportError` `.other` past `maxBytes`.
    public func readAll(maxBytes: Int = 64 * 1024 * 1024) async throws -> [UInt8] {
        var all: [UInt8] = []
        while let chunk = try await read() {
            all += chunk
            if all.count > maxBytes {
                throw TransportError(.other, operation: "read", systemMessage: "more than \(maxBytes) bytes")
            }
        }
        return all
    }

    private func didRead(status: Int, bytes: UnsafeRawBufferPointer) {
        if let tls {
            didReadTLS(tls, status: status, bytes: bytes)
        } else {
            deliver(status: status, bytes: bytes)
        }
    }

    /// Hands plaintext (status > 0) or the end of the stream (status < 0) to the reader.
    func deliver(status: Int, bytes: UnsafeRawBufferPointer) {
        if case .inPlace(let inPlaceReader) = reader {
            deliverInPlace(status: status, bytes: bytes, to: inPlaceReader)
            return
        }
        if status > 0 {
            // Copied here: the loop's read buffer is reused by the next read.
            readQueue()?.push(Array(bytes), size: bytes.count)
        } else if status < 0 {
            endReading(endError(status))
        }
    }

    /// The stream will yield nothing more: the end (nil) or `error`.
    func endReading(_ error: TransportError?) {
        guard input.isOpen else { return }
        if !handle.isClosing { uv_read_stop(handle.stream) }
        input = error.map(Input.failed) ?? .ended
        if case .inPlace(let inPlaceReader) = reader {
            inPlaceReader(error.map(InPlaceRead.failure) ?? .end)
            return
        }
        existingReadQueue?.finish(error)
    }

    /// The error a negative read status means, or nil for an orderly end.
    ///
    /// When the peer's last data and its reset arrive in one poll event, libuv
    /// (1.44) reads the data, then reports `UV_EOF` and never reads the error,
    /// which stays in `SO_ERROR`: a reset would pass for a clean end (and a cut
    /// close-delimited body for a complete one). So an EOF asks the socket.
    func endError(_ status: Int) -> TransportError? {
        guard status == Int(UV_EOF.rawValue) else {
            return UVError.transportError(Int32(status), operation: "read", address: remoteAddress?.description)
        }
        guard handle.handle.pointee.type == UV_TCP else { return nil }
        var fd = uv_os_fd_t()
        guard uv_fileno(handle.handle, &fd) == 0 else { return nil }
        var pending: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_ERROR, &pending, &length) == 0, pending != 0 else { return nil }
        return UVError.transportError(-pending, operation: "read", address: remoteAddress?.description)
    }

    /// Bytes written that the peer has not acknowledged yet: what waits in libuv's
    /// queue and in the kernel's send queue (`SIOCOUTQ`; TCP only, else 0). When it
    /// goes down, the peer is taking what this side sends.
    var unacknowledgedBytes: Int {
        let queued = Int(uv_stream_get_write_queue_size(handle.stream))
        guard !handle.isClosing, handle.handle.pointee.type == UV_TCP else { return queued }
        var fd = uv_os_fd_t()
        var inKernel: Int32 = 0
        // SIOCOUTQ (0x5411, TIOCOUTQ): bytes in the send queue not yet acknowledged.
        guard uv_fileno(handle.handle, &fd) == 0, ioctl(fd, 0x5411, &inKernel) == 0 else { return queued }
        return queued + Int(inKernel)
    }

    /// The buffered reader's backpressure, from its queue, on this loop.
    private func setBufferedReading(_ reading: Bool) {
        guard !handle.isClosing, case .buffered = reader, input.isOpen else { return }
        if reading {
            uv_read_start(handle.stream, UVHandle.allocCallback, UVHandle.readCallback)
        } else {
            uv_read_stop(handle.stream)
        }
    }

    // MARK: Reading in place (for protocol parsers on the same loop)

    /// What an in-place reader receives.
    package enum InPlaceRead {
        /// Bytes in the loop's read buffer: parse or copy them before returning.
        case bytes(UnsafeRawBufferPointer)
        /// The peer finished sending.
        case end
        /// The stream failed or was closed.
        case failure(TransportError)
    }

    /// Hands every later read to `reader`, synchronously on the loop thread and
    /// in place (no copy): the path of the HTTP/1.1 parser. Bytes that were
    /// already buffered are delivered first; a task waiting in `read()`, and
    /// any later `read()`, get `TransportError` `.other`. Backpressure is then
    /// the reader's own, through `pauseReading()` and `resumeReading()`.
    package func setInPlaceReader(_ reader: @escaping (InPlaceRead) -> Void) {
        let queue = existingReadQueue
        self.reader = .inPlace(reader)
        for chunk in queue?.takeQueued() ?? [] {
            chunk.withUnsafeBytes { reader(.bytes($0)) }
        }
        queue?.finish(Self.readsGoInPlace)
        if case .ended = input {
            reader(.end)
        } else if case .failed(let error) = input {
            reader(.failure(error))
        } else if let closeReason {
            reader(.failure(closeReason))
        } else if !handle.isClosing {
            uv_read_start(handle.stream, UVHandle.allocCallback, UVHandle.readCallback)
        }
    }

    /// Stops reading the socket (in-place readers' backpressure).
    package func pauseReading() {
        guard !handle.isClosing, input.isOpen else { return }
        uv_read_stop(handle.stream)
    }

    /// Resumes reading the socket.
    package func resumeReading() {
        guard !handle.isClosing, input.isOpen, closeReason == nil else { return }
        uv_read_start(handle.stream, UVHandle.allocCallback, UVHandle.readCallback)
    }

    private func deliverInPlace(status: Int, bytes: UnsafeRawBufferPointer, to reader: (InPlaceRead) -> Void) {
        if status > 0 {
            reader(.bytes(bytes))
        } else if status < 0 {
            endReading(endError(status))
        }
    }

    // MARK: Writing

    /// Writes `bytes`, returning once the kernel has taken them all.
    ///
    /// - Throws: `TransportError` (`.connectionReset`, `.closed`, …);
    ///   `CancellationError` if the task is cancelled while the write waits,
    ///   in which case the stream is closed (what reached the peer is unknown).
    public func write(_ bytes: [UInt8]) async throws {
        try await write(contentsOf: CollectionOfOne(bytes))
    }

    /// Writes several buffers in one vectored write (`uv_try_write`, then `uv_write` for the rest).
    ///
    /// - Throws: as `write(_:)`.
    public func write<C: Collection<[UInt8]>>(contentsOf buffers: C) async throws {
        if let pending = try startWrite(buffers) { try await waitForWrite(pending) }
    }

    /// Writes what the kernel takes of `buffers` now (encrypted first under
    /// TLS) and queues the rest, without suspending: the rest's completion, or
    /// nil when everything went out. The HTTP client calls it synchronously
    /// from the loop, so that a small request costs no hop to this actor.
    ///
    /// - Throws: as `write(_:)`.
    func startWrite<C: Collection>(_ buffers: C) throws -> OnceContinuation<Void>? where C.Element: WritableBytes {
        if let closeReason { throw closeReason.with(operation: "write") }
        if let tls { return try startTLSWrite(buffers, through: tls) }
        let total = buffers.reduce(0) { $0 + $1.count }
        guard total > 0 else { return nil }
        let taken = UVBuffers.with(buffers) { bufs, count in uv_try_write(handle.stream, bufs, UInt32(count)) }
        if taken == total { return nil }
        if taken < 0, taken != UV_EAGAIN.rawValue {
            throw UVError.transportError(taken, operation: "write", address: remoteAddress?.description)
        }
        // Queued now, before any suspension, so that no other write can slip
        // in between the part the kernel took and the rest.
        return try queueWrite(UVBuffers.copy(buffers, droppingFirst: Int(max(taken, 0))))
    }

    /// Writes what the kernel takes of `bytes` at once and returns the rest,
    /// copied into an owned block, or nil when all went out.
    ///
    /// - Throws: `TransportError` when the socket refuses the write.
    func tryWrite(_ bytes: UnsafeRawBufferPointer) throws -> UnsafeMutableRawBufferPointer? {
        guard !bytes.isEmpty else { return nil }
        var buf = uv_buf_init(UnsafeMutablePointer(mutating: bytes.baseAddress!.assumingMemoryBound(to: CChar.self)), UInt32(bytes.count))
        let taken = uv_try_write(handle.stream, &buf, 1)
        if taken == bytes.count { return nil }
        if taken < 0, taken != UV_EAGAIN.rawValue {
            throw UVError.transportError(taken, operation: "write", address: remoteAddress?.description)
        }
        let rest = UnsafeRawBufferPointer(rebasing: bytes[Int(max(taken, 0))...])
        let block = UnsafeMutableRawBufferPointer.allocate(byteCount: rest.count, alignment: 1)
        block.copyMemory(from: rest)
        return block
    }

    /// Queues `block` (which the write request then owns) behind any earlier write.
    ///
    /// - Throws: `TransportError` when libuv refuses the write.
    func queueWrite(_ block: UnsafeMutableRawBufferPointer) throws -> OnceContinuation<Void> {
        let request = UVRequest.make(UV_WRITE)
        request.payload = block
        let done = OnceContinuation<Void>()
        request.completion = { [remote = remoteAddress] status in
            done.resume(with: status < 0
                ? .failure(UVError.transportError(status, operation: "write", address: remote?.description))
                : .success(()))
        }
        var buf = uv_buf_init(block.baseAddress!.assumingMemoryBound(to: CChar.self), UInt32(block.count))
        let status = uv_write(request.pointer(as: uv_write_t.self), handle.stream, &buf, 1, UVRequest.writeCallback)
        if status < 0 {
            request.discard()
            throw UVError.transportError(status, operation: "write", address: remoteAddress?.description)
        }
        return done
    }

    /// Waits for a queued write; cancelling the task closes the stream.
    nonisolated func waitForWrite(_ done: OnceContinuation<Void>) async throws {
        try await withTaskCancellationHandler {
            try await done.wait()
        } onCancel: { [weak self] in
            guard let self else { return }
            try? self.loop.execute { self.assumeIsolated { $0.close() } }
        }
    }

    /// Half-closes the stream: the peer sees the end of data; reading goes on.
    ///
    /// - Throws: `TransportError` if the stream is closed or the shutdown fails.
    public func shutdownOutput() async throws {
        if let closeReason { throw closeReason.with(operation: "shutdown") }
        let request = UVRequest.make(UV_SHUTDOWN)
        try await withCheckedThrowingContinuation { (c: CheckedContinuation<Void, any Error>) in
            request.completion = { status in
                if status < 0 { c.resume(throwing: UVError.transportError(status, operation: "shutdown")) } else { c.resume() }
            }
            let status = uv_shutdown(request.pointer(as: uv_shutdown_t.self), handle.stream, UVRequest.shutdownCallback)
            if status < 0 {
                request.discard()
                c.resume(throwing: UVError.transportError(status, operation: "shutdown"))
            }
        }
    }

    // MARK: Closing

    /// Closes the stream at once; pending reads and writes fail with `.closed`. Safe to call twice.
    public func close() {
        if closeReason == nil { sendCloseNotify() }
        finish(TransportError(.closed, operation: "close"))
        handle.close()
    }

    /// Closes with a TCP reset (RST) instead of a FIN: the peer sees `ECONNRESET`.
    public func reset() {
        if !handle.isClosing, handle.handle.pointee.type == UV_TCP {
            finish(TransportError(.closed, operation: "reset"))
            handle.closeWithReset()
            return
        }
        close()
    }

    private func didClose() {
        // Closed by the loop's shutdown, not by us.
        finish(TransportError(.eventLoopShutdown, operation: "close"))
    }

    private func finish(_ reason: TransportError) {
        guard closeReason == nil else { return }
        closeReason = reason
        existingReadQueue?.finish(reason.with(operation: "read"))
        tlsHandshake?.resume(with: .failure(reason))
        tlsHandshake = nil
        if input.isOpen, case .inPlace(let inPlaceReader) = reader { inPlaceReader(.failure(reason)) }
    }

    // MARK: Options

    /// Turns Nagle's algorithm off (true) or on.
    /// - Throws: `TransportError` if the socket refuses the option or is not TCP.
    public func setNoDelay(_ enabled: Bool) throws {
        try UVError.check(uv_tcp_nodelay(handle.tcp, enabled ? 1 : 0), "setsockopt TCP_NODELAY")
    }

    /// Turns TCP keep-alive probes on after `idle` without traffic, or off with nil.
    /// - Throws: `TransportError` if the socket refuses the option or is not TCP.
    public func setKeepAlive(_ idle: Duration?) throws {
        let seconds = idle.map { UInt32(clamping: max(1, $0.components.seconds)) } ?? 0
        try UVError.check(uv_tcp_keepalive(handle.tcp, idle == nil ? 0 : 1, seconds), "setsockopt SO_KEEPALIVE")
    }

    /// Applies the per-socket parts of `options` to a fresh TCP socket.
    nonisolated static func configure(_ handle: UVHandle, _ options: SocketOptions) {
        uv_tcp_nodelay(handle.tcp, options.noDelay ? 1 : 0)
        if let idle = options.keepAlive {
            uv_tcp_keepalive(handle.tcp, 1, UInt32(clamping: max(1, idle.components.seconds)))
        }
    }

    /// Bytes received and not yet read by the consumer (for tests of backpressure).
    public var bufferedByteCount: Int { existingReadQueue?.bufferedSize ?? 0 }
}

extension SocketStream {
    /// The bytes of a `SocketStream` as an `AsyncSequence`.
    public struct Inbound: AsyncSequence, Sendable {
        public typealias Element = [UInt8]
        let stream: SocketStream

        public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(stream: stream) }

        /// Reads the next chunk; nil at the end.
        public struct AsyncIterator: AsyncIteratorProtocol {
            let stream: SocketStream
            public mutating func next() async throws -> [UInt8]? { try await stream.read() }
        }
    }
}

