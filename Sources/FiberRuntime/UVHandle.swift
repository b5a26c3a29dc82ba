import CLibUV

/// Owns one libuv handle: its memory, the retain held in `handle->data`, and
/// its single close path.
///
/// Lifecycle: `make` checks that the loop still accepts handles, allocates
/// the memory, runs the matching `uv_*_init`, stores a retain of this box in
/// `data` and counts the handle on its loop. libuv events reach the closures
/// below, on the loop thread. `close()` (safe to call twice) calls `uv_close`;
/// its callback runs `onClose`, drops every closure (owners are captured
/// weakly, but this breaks any cycle anyway), frees the memory, uncounts the
/// handle and releases the retain. Loop shutdown closes every handle this way.
final class UVHandle: @unchecked Sendable {
    // @unchecked: every field is read and written only on the owning loop's
    // thread; the box crosses threads only as an opaque reference.
    let raw: UnsafeMutableRawPointer
    let loop: EventLoop
    private(set) var isClosing = false

    /// Runs once, when libuv has finished closing the handle.
    var onClose: (() -> Void)?
    /// A timer fired.
    var onTimer: (() -> Void)?
    /// A stream read: `status` is the byte count, or a negative libuv error (`UV_EOF` at the end).
    /// The bytes are the loop's shared read buffer: copy or parse them before returning.
    var onRead: ((_ status: Int, _ bytes: UnsafeRawBufferPointer) -> Void)?
    /// A listening socket has a connection to accept (or an error).
    var onConnection: ((_ status: Int32) -> Void)?
    /// A polled descriptor is ready (`events`: `UV_READABLE`, …), or `status` is a negative libuv error.
    var onPoll: ((_ status: Int32, _ events: Int32) -> Void)?

    private init(raw: UnsafeMutableRawPointer, loop: EventLoop) {
        self.raw = raw
        self.loop = loop
    }

    var handle: UnsafeMutablePointer<uv_handle_t> { raw.assumingMemoryBound(to: uv_handle_t.self) }
    var stream: UnsafeMutablePointer<uv_stream_t> { raw.assumingMemoryBound(to: uv_stream_t.self) }
    var tcp: UnsafeMutablePointer<uv_tcp_t> { raw.assumingMemoryBound(to: uv_tcp_t.self) }
    var pipe: UnsafeMutablePointer<uv_pipe_t> { raw.assumingMemoryBound(to: uv_pipe_t.self) }
    var timer: UnsafeMutablePointer<uv_timer_t> { raw.assumingMemoryBound(to: uv_timer_t.self) }
    var poll: UnsafeMutablePointer<uv_poll_t> { raw.assumingMemoryBound(to: uv_poll_t.self) }

    /// Allocates and initializes a handle of `type` on `loop`. Call on the loop thread.
    ///
    /// - Throws: `TransportError` `.eventLoopShutdown` once shutdown has started,
    ///   or the libuv error of `initialize`.
    static func make(
        _ type: uv_handle_type, on loop: EventLoop, operation: String,
        initialize: (UVHandle) -> Int32
    ) throws(TransportError) -> UVHandle {
        precondition(loop.inEventLoop, "libuv handles are created on their loop's thread")
        guard loop.isAcceptingHandles else { throw TransportError(.eventLoopShutdown, operation: operation) }
        let raw = UnsafeMutableRawPointer.allocate(byteCount: uv_handle_size(type), alignment: 16)
        let box = UVHandle(raw: raw, loop: loop)
        let status = initialize(box)
        guard status >= 0 else {
            raw.deallocate()
            throw UVError.transportError(status, operation: operation)
        }
        box.handle.pointee.data = Unmanaged.passRetained(box).toOpaque()
        loop.loopOpenHandles += 1
        return box
    }

    static func from(_ handle: UnsafeMutableRawPointer) -> UVHandle {
        let data = handle.assumingMemoryBound(to: uv_handle_t.self).pointee.data!
        return Unmanaged<UVHandle>.fromOpaque(data).takeUnretainedValue()
    }

    /// Starts closing the handle; pending requests on it finish with `UV_ECANCELED` first.
    func close() {
        guard !isClosing else { return }
        isClosing = true
        uv_close(handle, UVHandle.closeCallback)
    }

    /// Closes a TCP handle with a reset (RST) rather than a FIN; falls back to `close()`.
    func closeWithReset() {
        guard !isClosing else { return }
        isClosing = true
        if uv_tcp_close_reset(tcp, UVHandle.closeCallback) < 0 {
            uv_close(handle, UVHandle.closeCallback)
        }
    }

    private static let closeCallback: uv_close_cb = { handle in
        let box = Unmanaged<UVHandle>.fromOpaque(handle!.pointee.data).takeRetainedValue()
        box.didClose()
    }

    private func didClose() {
        let callback = onClose
        onClose = nil
        onTimer = nil
        onRead = nil
        onConnection = nil
        onPoll = nil
        loop.loopOpenHandles -= 1
        raw.deallocate()
        callback?()
    }

    // MARK: Callbacks shared by every handle of a kind

    static let timerCallback: uv_timer_cb = { timer in
        UVHandle.from(UnsafeMutableRawPointer(timer!)).onTimer?()
    }

    /// Every read on a loop lands in the loop's one read buffer: libuv calls
    /// alloc and read back to back for one stream, so sharing it is safe and
    /// an idle connection holds no read memory.
    static let allocCallback: uv_alloc_cb = { handle, _, buf in
        let buffer = UVHandle.from(UnsafeMutableRawPointer(handle!)).loop.loopReadBuffer
        buf!.pointee = uv_buf_init(buffer.baseAddress!.assumingMemoryBound(to: CChar.self), UInt32(buffer.count))
    }

    static let readCallback: uv_read_cb = { stream, nread, buf in
        let box = UVHandle.from(UnsafeMutableRawPointer(stream!))
        let bytes = UnsafeRawBufferPointer(start: buf!.pointee.base, count: nread > 0 ? nread : 0)
        box.onRead?(nread, bytes)
    }

    static let pollCallback: uv_poll_cb = { poll, status, events in
        UVHandle.from(UnsafeMutableRawPointer(poll!)).onPoll?(status, events)
    }

    static let connectionCallback: uv_connection_cb = { server, status in
        UVHandle.from(UnsafeMutableRawPointer(server!)).onConnection?(status)
    }
}
