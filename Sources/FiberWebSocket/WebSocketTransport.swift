import FiberRuntime

/// The byte stream under a WebSocket connection: a TCP `SocketStream`, with
/// TLS started on it for `wss://` (the stream then encrypts and decrypts in
/// place, so nothing here changes).
///
/// All members are called on the stream's loop, from the connection actor
/// that shares its executor, so the synchronous ones use `assumeIsolated`.
enum WebSocketTransport: Sendable {
    case tcp(SocketStream)

    /// Writes buffers in one vectored write; returns once the kernel took them.
    func write(_ buffers: [[UInt8]]) async throws {
        switch self {
        case .tcp(let stream): try await stream.write(contentsOf: buffers)
        }
    }

    /// Reads one chunk (used only for the handshake, before the in-place reader).
    func read() async throws -> [UInt8]? {
        switch self {
        case .tcp(let stream): try await stream.read()
        }
    }

    /// Hands every later read to `connection`, in place, on the loop.
    func setReader(for connection: WebSocketConnection) {
        switch self {
        case .tcp(let stream):
            stream.assumeIsolated { stream in
                stream.setInPlaceReader { [weak connection] read in
                    // On the loop, synchronously: the bytes are valid only during this call.
                    nonisolated(unsafe) let read = read
                    connection?.assumeIsolated { $0.didRead(read) }
                }
            }
        }
    }

    func pauseReading() {
        switch self {
        case .tcp(let stream): stream.assumeIsolated { $0.pauseReading() }
        }
    }

    func resumeReading() {
        switch self {
        case .tcp(let stream): stream.assumeIsolated { $0.resumeReading() }
        }
    }

    func close() {
        switch self {
        case .tcp(let stream): stream.assumeIsolated { $0.close() }
        }
    }

    /// Closes from outside the loop (after a failed handshake).
    func closeAsync() async {
        switch self {
        case .tcp(let stream): await stream.close()
        }
    }
}
