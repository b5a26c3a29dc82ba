import CLibUV
import DequeModule
#if canImport(Glibc)
import Glibc
#endif

/// A listening TCP or Unix domain socket that hands out accepted connections,
/// owned by an actor pinned to its event loop. Accepted streams live on the
/// same loop. Used by the loopback test server and by the demo.
///
/// Lifecycle: `listen(...)` binds and listens; `accept()` (or `connections`)
/// waits for the next peer; `close()` stops listening and fails waiters with
/// `TransportError` `.closed`. Loop shutdown closes it too.
public actor SocketListener {
    /// The loop that owns the listening socket and the streams it accepts.
    public nonisolated let loop: EventLoop
    /// The bound address; for port 0, the port the system chose.
    public nonisolated let localAddress: SocketAddress

    private let handle: UVHandle
    private let options: SocketOptions
    private var ready = Deque<SocketStream>()
    private var waiter: CheckedContinuation<SocketStream, any Error>?
    private var failure: TransportError?

    public nonisolated var unownedExecutor: UnownedSerialExecutor { loop.executor }

    private init(handle: UVHandle, localAddress: SocketAddress, options: SocketOptions) {
        self.loop = handle.loop
        self.handle = handle
        self.localAddress = localAddress
        self.options = options
        handle.onConnection = { [weak self] status in self?.assumeIsolated { $0.didReceiveConnection(status) } }
        handle.onClose = { [weak self] in
            self?.assumeIsolated { $0.fail(TransportError(.eventLoopShutdown, operation: "accept")) }
        }
    }

    isolated deinit { handle.close() }

    /// Listens on `host` (an IP literal, default 127.0.0.1) and `port` (0: any free port).
    ///
    /// - Throws: `TransportError` (`.addressInUse`, `.eventLoopShutdown`, …).
    public static func listen(
        host: String = "127.0.0.1", port: Int = 0, backlog: Int32 = 511, on loop: EventLoop? = nil,
        options: SocketOptions = SocketOptions()
    ) async throws -> SocketListener {
        guard let address = SocketAddress(ipLiteral: host, port: port) else {
            throw TransportError(.other, operation: "listen", host: host, systemMessage: "listen needs an IP literal")
        }
        let loop = loop ?? EventLoopGroup.shared.next()
        return try await loop.submit {
            let handle = try UVHandle.make(UV_TCP, on: loop, operation: "listen") { uv_tcp_init(loop.uvLoop, $0.tcp) }
            do {
                _ = try address.withSockAddr { try UVError.check(uv_tcp_bind(handle.tcp, $0, 0), "bind \(address)") }
                try UVError.check(uv_listen(handle.stream, backlog, UVHandle.connectionCallback), "listen \(address)")
                return SocketListener(handle: handle, localAddress: try boundAddress(handle) ?? address, options: options)
            } catch {
                handle.close()
                throw error
            }
        }
    }

    /// Listens on a Unix domain socket at `path`, replacing a stale socket file left there.
    ///
    /// - Throws: `TransportError` (`.addressInUse` if another process listens there, …).
    public static func listen(
        unixPath path: String, backlog: Int32 = 511, on loop: EventLoop? = nil, options: SocketOptions = SocketOptions()
    ) async throws -> SocketListener {
        let loop = loop ?? EventLoopGroup.shared.next()
        return try await loop.submit {
            let handle = try UVHandle.make(UV_NAMED_PIPE, on: loop, operation: "listen") { uv_pipe_init(loop.uvLoop, $0.pipe, 0) }
            do {
                var rc = uv_pipe_bind(handle.pipe, path)
                if rc == UV_EADDRINUSE.rawValue, !Self.someoneListens(at: path) {
                    unlink(path)
                    rc = uv_pipe_bind(handle.pipe, path)
                }
                try UVError.check(rc, "bind unix:\(path)")
                try UVError.check(uv_listen(handle.stream, backlog, UVHandle.connectionCallback), "listen unix:\(path)")
                return SocketListener(handle: handle, localAddress: .unix(path: path), options: options)
            } catch {
                handle.close()
                throw error
            }
        }
    }

    /// The port the listener is bound to.
    public nonisolated var port: Int { localAddress.port }

    /// The next accepted connection.
    ///
    /// - Throws: `TransportError` `.closed` once the listener is closed; `CancellationError`.
    public func accept() async throws -> SocketStream {
        if let stream = ready.popFirst() { return stream }
        return try await withTaskCancellationHandler {
            // Decided inside the continuation's body: the runtime may suspend
            // between an earlier check and here, and let `close()` run.
            try await withCheckedThrowingContinuation { c in
                if let stream = ready.popFirst() {
                    c.resume(returning: stream)
                } else if let failure {
                    c.resume(throwing: failure)
                } else if waiter != nil {
                    c.resume(throwing: TransportError(.other, operation: "accept", systemMessage: "another task is already accepting"))
                } else if Task.isCancelled {
                    // The cancellation handler may already have run, finding no waiter to resume.
                    c.resume(throwing: CancellationError())
                } else {
                    waiter = c
                }
            }
        } onCancel: { [weak self] in
            guard let self else { return }
            try? self.loop.execute {
                self.assumeIsolated { me in
                    me.waiter?.resume(throwing: CancellationError())
                    me.waiter = nil
                }
            }
        }
    }

    /// Accepted connections as an `AsyncSequence`; it ends when the listener closes.
    public nonisolated var connections: Connections { Connections(listener: self) }

    /// Stops listening. Connections already accepted stay open. Safe to call twice.
    public func close() {
        fail(TransportError(.closed, operation: "accept"))
        handle.close()
    }

    private func fail(_ error: TransportError) {
        guard failure == nil else { return }
        failure = error
        waiter?.resume(throwing: error)
        waiter = nil
    }

    private func didReceiveConnection(_ status: Int32) {
        guard status == 0, failure == nil else { return }
        let isTCP = handle.handle.pointee.type == UV_TCP
        do {
            let client = try UVHandle.make(isTCP ? UV_TCP : UV_NAMED_PIPE, on: loop, operation: "accept") {
                isTCP ? uv_tcp_init(loop.uvLoop, $0.tcp) : uv_pipe_init(loop.uvLoop, $0.pipe, 0)
            }
            guard uv_accept(handle.stream, client.stream) == 0 else {
                client.close()
                return
            }
            if isTCP { SocketStream.configure(client, options) }
            let stream = SocketStream(adopting: client, remoteAddress: isTCP ? Self.peerAddress(client) : nil, options: options)
            if let waiter {
                self.waiter = nil
                waiter.resume(returning: stream)
            } else {
                ready.append(stream)
            }
        } catch {
            // The loop is shutting down; the pending connection is dropped with it.
        }
    }

    private static func boundAddress(_ handle: UVHandle) throws -> SocketAddress? {
        var storage = sockaddr_storage()
        var length = Int32(MemoryLayout<sockaddr_storage>.size)
        return try withUnsafeMutablePointer(to: &storage) { pointer in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { sa in
                try UVError.check(uv_tcp_getsockname(handle.tcp, sa, &length), "getsockname")
                return SocketAddress(UnsafePointer(sa))
            }
        }
    }

    private static func peerAddress(_ handle: UVHandle) -> SocketAddress? {
        var storage = sockaddr_storage()
        var length = Int32(MemoryLayout<sockaddr_storage>.size)
        return withUnsafeMutablePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { sa in
                uv_tcp_getpeername(handle.tcp, sa, &length) == 0 ? SocketAddress(UnsafePointer(sa)) : nil
            }
        }
    }

    /// True when a process accepts connections at the Unix socket `path` (so it is not stale).
    private static func someoneListens(at path: String) -> Bool {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return true }
        defer { Glibc.close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return true }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        return rc == 0
    }
}

extension SocketListener {
    /// Accepted connections as an `AsyncSequence`.
    public struct Connections: AsyncSequence, Sendable {
        public typealias Element = SocketStream
        let listener: SocketListener

        public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(listener: listener) }

        /// Waits for the next connection; nil once the listener is closed.
        public struct AsyncIterator: AsyncIteratorProtocol {
            let listener: SocketListener
            public mutating func next() async throws -> SocketStream? {
                do {
                    return try await listener.accept()
                } catch let error as TransportError where error.kind == .closed || error.kind == .eventLoopShutdown {
                    return nil
                }
            }
        }
    }
}
