import CLibUV

/// One in-flight libuv request (connect, write, shutdown, getaddrinfo): its
/// memory, the bytes a write must keep alive, and what to do on completion.
///
/// `make` stores a retain in `req->data`; the libuv callback takes it back,
/// runs `completion` once and frees everything. A request whose submission
/// failed is released with `discard()` instead.
final class UVRequest: @unchecked Sendable {
    // @unchecked: created, completed and freed on one loop thread.
    let raw: UnsafeMutableRawPointer
    /// Bytes owned by the request (a write's unsent remainder), freed with it.
    var payload: UnsafeMutableRawBufferPointer?
    /// Runs once with the libuv status (0 or a negative error).
    var completion: ((Int32) -> Void)?
    /// For file-system requests: runs once with the finished request (result, stat buffer) before it is cleaned up.
    var fsCompletion: ((UnsafeMutablePointer<uv_fs_t>) -> Void)?
    /// For thread-pool work (`uv_queue_work`): runs on a thread of libuv's pool; `completion` follows on the loop.
    var work: (() -> Void)?
    /// For getaddrinfo: runs once with the status and the result list (freed after it returns).
    var resolution: ((Int32, UnsafeMutablePointer<addrinfo>?) -> Void)?

    private init(raw: UnsafeMutableRawPointer) { self.raw = raw }

    static func make(_ type: uv_req_type) -> UVRequest {
        let raw = UnsafeMutableRawPointer.allocate(byteCount: uv_req_size(type), alignment: 16)
        let box = UVRequest(raw: raw)
        raw.assumingMemoryBound(to: uv_req_t.self).pointee.data = Unmanaged.passRetained(box).toOpaque()
        return box
    }

    func pointer<T>(as: T.Type) -> UnsafeMutablePointer<T> { raw.assumingMemoryBound(to: T.self) }

    /// Frees a request that libuv never accepted.
    func discard() {
        Unmanaged<UVRequest>.fromOpaque(raw.assumingMemoryBound(to: uv_req_t.self).pointee.data!).release()
        free()
    }

    private func free() {
        completion = nil
        resolution = nil
        fsCompletion = nil
        work = nil
        payload?.deallocate()
        payload = nil
        raw.deallocate()
    }

    private static func take(_ req: UnsafeMutableRawPointer) -> UVRequest {
        Unmanaged<UVRequest>.fromOpaque(req.assumingMemoryBound(to: uv_req_t.self).pointee.data!).takeRetainedValue()
    }

    private static func finish(_ req: UnsafeMutableRawPointer, _ status: Int32) {
        let box = take(req)
        let completion = box.completion
        box.free()
        completion?(status)
    }

    static let writeCallback: uv_write_cb = { req, status in finish(UnsafeMutableRawPointer(req!), status) }
    static let connectCallback: uv_connect_cb = { req, status in finish(UnsafeMutableRawPointer(req!), status) }
    static let shutdownCallback: uv_shutdown_cb = { req, status in finish(UnsafeMutableRawPointer(req!), status) }
    static let fsCallback: uv_fs_cb = { req in
        let box = take(UnsafeMutableRawPointer(req!))
        let completion = box.fsCompletion
        completion?(req!)
        uv_fs_req_cleanup(req)
        box.free()
    }
    /// On a pool thread: the request stays owned by libuv until `afterWorkCallback`.
    static let workCallback: uv_work_cb = { req in
        let box = Unmanaged<UVRequest>.fromOpaque(req!.pointee.data!).takeUnretainedValue()
        box.work?()
    }
    static let afterWorkCallback: uv_after_work_cb = { req, status in finish(UnsafeMutableRawPointer(req!), status) }
    static let getaddrinfoCallback: uv_getaddrinfo_cb = { req, status, result in
        let box = take(UnsafeMutableRawPointer(req!))
        let resolution = box.resolution
        box.free()
        resolution?(status, result)
        uv_freeaddrinfo(result)
    }
}
