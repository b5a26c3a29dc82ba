import FiberRuntime
import FiberTesting
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Runs `body` with a fresh group, checks that it left no handle open, and shuts the group down.
@discardableResult
func withGroup<T>(
    loops: Int = 1, sourceLocation: SourceLocation = #_sourceLocation,
    _ body: (EventLoopGroup) async throws -> T
) async throws -> T {
    let group = EventLoopGroup(loopCount: loops, name: "test")
    do {
        let result = try await body(group)
        try await expectNoOpenHandles(group, sourceLocation: sourceLocation)
        try await group.shutdown()
        return result
    } catch {
        try? await group.shutdown()
        throw error
    }
}

/// Every handle the group's loops opened is closed (close callbacks may still be a turn or two away).
func expectNoOpenHandles(_ group: EventLoopGroup, sourceLocation: SourceLocation = #_sourceLocation) async throws {
    let leaked = try await group.leakedHandles()
    #expect(leaked.isEmpty, "open handles left per loop: \(leaked)", sourceLocation: sourceLocation)
}

/// CPU time the calling thread has used, in seconds.
func threadCPUSeconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}

/// An echo server: every accepted connection gets its bytes back until it half-closes.
func startEcho(on loop: EventLoop) async throws -> (SocketListener, Task<Void, Never>) {
    let listener = try await SocketListener.listen(on: loop)
    let task = Task {
        await withTaskGroup(of: Void.self) { group in
            do {
                for try await connection in listener.connections {
                    group.addTask {
                        while let chunk = try? await connection.read() {
                            do { try await connection.write(chunk) } catch { break }
                        }
                        await connection.close()
                    }
                }
            } catch {}
        }
    }
    return (listener, task)
}

/// A listener on 127.0.0.1, a client connected to it and the server's side of that connection, all on `loop`.
func connectedPair(on loop: EventLoop) async throws -> (SocketListener, SocketStream, SocketStream) {
    let listener = try await SocketListener.listen(on: loop)
    let accepted = Task { try await listener.accept() }
    let client = try await SocketStream.connect(host: "127.0.0.1", port: listener.port, on: loop)
    return (listener, client, try await accepted.value)
}

/// Reads exactly `count` bytes (fewer only if the stream ends first).
func read(_ count: Int, from stream: SocketStream) async throws -> [UInt8] {
    var bytes: [UInt8] = []
    while bytes.count < count, let chunk = try await stream.read() { bytes += chunk }
    return bytes
}
