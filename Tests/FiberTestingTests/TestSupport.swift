import FiberRuntime
import FiberTesting
import Testing

/// A server on a fresh one-loop group, and the raw clients a test opens on the same loop.
final class Harness {
    let group: EventLoopGroup
    let server: TestHTTPServer
    private var clients: [RawClient] = []

    var loop: EventLoop { group.loops[0] }

    init(group: EventLoopGroup, server: TestHTTPServer) {
        self.group = group
        self.server = server
    }

    /// A raw TCP client connected to the server; closed by `withServer` at the end if still open.
    func connect() async throws -> RawClient {
        let client = try await RawClient.connect(port: server.port, on: loop)
        clients.append(client)
        return client
    }

    func closeClients() async {
        for client in clients { await client.close() }
    }
}

/// Runs `body` with a server on a fresh group; then closes the clients, shuts
/// the server down, checks that no handle is left open, and shuts the group down.
func withServer(
    configuration: TestHTTPServer.Configuration = TestHTTPServer.Configuration(),
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: (Harness) async throws -> Void
) async throws {
    let group = EventLoopGroup(loopCount: 1, name: "test")
    let server: TestHTTPServer
    do {
        server = try await TestHTTPServer.start(on: group.loops[0], configuration: configuration)
    } catch {
        try? await group.shutdown()
        throw error
    }
    let harness = Harness(group: group, server: server)
    do {
        try await body(harness)
    } catch {
        await harness.closeClients()
        await server.shutdown()
        try? await group.shutdown()
        throw error
    }
    await harness.closeClients()
    await server.shutdown()
    try await expectNoOpenHandles(group, sourceLocation: sourceLocation)
    try await group.shutdown()
}

/// Every handle the group's loops opened is closed (close callbacks may still be a turn or two away).
func expectNoOpenHandles(_ group: EventLoopGroup, sourceLocation: SourceLocation = #_sourceLocation) async throws {
    let leaked = try await group.leakedHandles()
    #expect(leaked.isEmpty, "open handles left per loop: \(leaked)", sourceLocation: sourceLocation)
}

/// A client that writes request bytes by hand and reads the exact bytes that come back.
final class RawClient {
    let stream: SocketStream
    private var buffer: [UInt8] = []
    private var ended = false

    init(stream: SocketStream) { self.stream = stream }

    static func connect(port: Int, on loop: EventLoop) async throws -> RawClient {
        RawClient(stream: try await SocketStream.connect(host: "127.0.0.1", port: port, on: loop))
    }

    func send(_ text: String) async throws { try await stream.write(Array(text.utf8)) }

    func send(_ bytes: [UInt8]) async throws { try await stream.write(bytes) }

    /// Reads one more chunk into the buffer; false at the end of the stream.
    private func fill() async throws -> Bool {
        guard !ended else { return false }
        guard let chunk = try await stream.read() else {
            ended = true
            return false
        }
        buffer += chunk
        return true
    }

    /// Exactly `count` bytes, or fewer if the stream ends first.
    func read(count: Int) async throws -> [UInt8] {
        while buffer.count < count, try await fill() {}
        let n = min(count, buffer.count)
        defer { buffer.removeFirst(n) }
        return Array(buffer.prefix(n))
    }

    func readString(count: Int) async throws -> String {
        String(decoding: try await read(count: count), as: UTF8.self)
    }

    /// The bytes through the first `marker` (or all of them if the stream ends first).
    func read(through marker: String) async throws -> String {
        let mark = Array(marker.utf8)
        while true {
            if let range = firstRange(of: mark) {
                defer { buffer.removeFirst(range.upperBound) }
                return String(decoding: buffer[..<range.upperBound], as: UTF8.self)
            }
            if try await !fill() { return String(decoding: try await read(count: buffer.count), as: UTF8.self) }
        }
    }

    /// A response head, then a `Content-Length` body if the head has one.
    func readResponse() async throws -> String {
        let head = try await read(through: "\r\n\r\n")
        let length = head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
            .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: " ")) } ?? 0
        return head + (try await readString(count: length))
    }

    /// Everything until the server closes.
    func readToEnd() async throws -> String {
        while try await fill() {}
        return String(decoding: try await read(count: buffer.count), as: UTF8.self)
    }

    /// True when nothing is buffered and the server has closed its side.
    func isAtEnd() async throws -> Bool {
        if !buffer.isEmpty { return false }
        return try await !fill()
    }

    /// Reads `expected.utf8.count` bytes and checks they are `expected`.
    func expect(_ expected: String, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let got = try await readString(count: expected.utf8.count)
        #expect(got == expected, sourceLocation: sourceLocation)
    }

    func close() async { await stream.close() }

    private func firstRange(of mark: [UInt8]) -> Range<Int>? {
        guard buffer.count >= mark.count else { return nil }
        for start in 0...(buffer.count - mark.count) where buffer[start..<(start + mark.count)].elementsEqual(mark) {
            return start..<(start + mark.count)
        }
        return nil
    }
}

extension StringProtocol {
    func trimmingCharacters(in set: Character) -> String {
        String(drop { $0 == set }.reversed().drop { $0 == set }.reversed())
    }
}

/// `text/plain` 200 response bytes for `body`, as `TestResponse.ok` sends them.
func okBytes(_ body: String, extra: String = "") -> String {
    "HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: \(body.utf8.count)\r\n\(extra)\r\n\(body)"
}

/// A simple GET request.
func get(_ target: String, _ extra: String = "") -> String {
    "GET \(target) HTTP/1.1\r\nHost: test\r\n\(extra)\r\n"
}
