import ArgumentParser
import FiberLoad
import FiberRuntime
import FiberWebSocket
import Foundation

/// `fiber ws URL`: an interactive WebSocket session (lines from standard input
/// become text messages; received messages are printed), `--send` for a
/// scripted one, and `--bench` for an echo load with a latency histogram.
public struct WS: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "ws", abstract: "A WebSocket session (standard input ↔ messages), or an echo load with --bench.")

    @Argument(help: "The ws:// or wss:// URL.")
    var url: String

    @Option(name: [.customShort("H"), .long], help: "A handshake header, \"Name: value\" (repeatable).")
    var header: [String] = []

    @Option(help: "A subprotocol to offer (repeatable, in preference order).")
    var subprotocol: [String] = []

    @Option(help: "Send this text message instead of reading standard input (repeatable); close after the answers.")
    var send: [String] = []

    @Flag(help: "Offer permessage-deflate compression.")
    var deflate = false

    @Flag(help: "Echo load: connections each send a message and wait for its echo, closed loop.")
    var bench = false

    @Option(name: .shortAndLong, help: "With --bench: connections (default 16).")
    var connections = 16

    @Option(name: .shortAndLong, help: "With --bench: seconds (default 5).")
    var duration: Double = 5

    @Option(help: "With --bench: bytes per message (default 32).")
    var size = 32

    @Flag(help: "With --bench: print the report as JSON.")
    var json = false

    @OptionGroup var tls: TLSOptions

    @OptionGroup var proxy: ProxyOptions

    public init() {}

    /// Runs the session or the load; a failure to connect exits with its status in `FiberExitCode`.
    public func run() async throws {
        let out = CommandOutput.current
        try await FiberExitCode.exiting(on: out) { try await session(out: out) }
    }

    private func session(out: CommandOutput) async throws {
        var headers = HTTPHeaders()
        for line in header {
            guard let colon = line.firstIndex(of: ":") else { throw ValidationError("a header is \"Name: value\", not \(line)") }
            headers.append(name: String(line[..<colon]), value: line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        var configuration = WebSocketConfiguration()
        if deflate { configuration.compression = PerMessageDeflate() }
        configuration.tls = tls.applied(to: configuration.tls)
        configuration.proxy = proxy.configuration
        if bench {
            try await runBench(headers: headers, configuration: configuration, out: out)
            return
        }
        let socket = try await WebSocketClient.open(url, headers: headers, subprotocols: subprotocol, configuration: configuration)
        out.error("connected to \(url)\(socket.subprotocol.map { " (subprotocol \($0))" } ?? "")\n")
        let expected = send.count
        let printer = Task { () -> Int in
            var received = 0
            for await event in socket.events {
                switch event {
                case .connected: continue
                case .message(.text(let text)): out.print(text)
                case .message(.binary(let bytes)): out.print("[\(bytes.count) bytes of binary data]")
                case .disconnected(let code, let reason):
                    out.error("disconnected: \(code.map(String.init) ?? "no code")\(reason.map { $0.isEmpty ? "" : " \($0)" } ?? "")\n")
                    return received
                case .error(let error): out.error("error: \(error)\n")
                }
                received += 1
                if expected > 0, received >= expected { socket.close(code: 1000, reason: "done") }
            }
            return received
        }
        if expected > 0 {
            for text in send { try await socket.send(.text(text)) }
        } else {
            for await line in Self.standardInputLines() { try await socket.send(.text(line)) }
            socket.close(code: 1000, reason: "end of input")
        }
        _ = await printer.value
    }

    /// Lines of standard input, read on a thread of their own (a blocking read must not hold a loop or the cooperative pool).
    static func standardInputLines() -> AsyncStream<String> {
        AsyncStream { continuation in
            let thread = Thread {
                while let line = readLine() { continuation.yield(line) }
                continuation.finish()
            }
            thread.start()
        }
    }

    private func runBench(headers: HTTPHeaders, configuration: WebSocketConfiguration, out: CommandOutput) async throws {
        guard connections >= 1, duration > 0, size >= 0 else { throw ValidationError("-c, -d and --size must be positive") }
        var sockets: [WebSocketConnection] = []
        for _ in 0..<connections {
            sockets.append(try await WebSocketClient.open(url, headers: headers, subprotocols: subprotocol, configuration: configuration))
        }
        let pool = Pool(sockets)
        let payload = [UInt8](repeating: 0x61, count: size)
        let test = LoadTest(schedule: .closedLoop(concurrency: connections), duration: .milliseconds(Int64(duration * 1000)))
        if !json { out.error("echo of \(size)-byte messages over \(connections) connections for \(duration) s\n") }
        let report = await test.run {
            let socket = pool.take()
            defer { pool.put(socket) }
            try await socket.send(.binary(payload))
            var events = socket.events.makeAsyncIterator()
            while let event = await events.next() {
                switch event {
                case .message(let message): return LoadSample(bytes: message.byteCount)
                case .connected: continue
                case .error(let error): throw error
                case .disconnected: throw LoadFailure(kind: "disconnected")
                }
            }
            throw LoadFailure(kind: "disconnected")
        }
        for socket in sockets { socket.close(code: 1000, reason: "bench over") }
        out.print(json ? try report.json() : report.table)
    }

    /// Connections lent to one request at a time.
    final class Pool: Sendable {
        // The runtime's pthread lock: ThreadSanitizer follows it (not Mutex's PI futex).
        private let free: Locked<[WebSocketConnection]>
        init(_ sockets: [WebSocketConnection]) { free = Locked(sockets) }
        func take() -> WebSocketConnection { free.withLock { $0.removeLast() } }
        func put(_ socket: WebSocketConnection) { free.withLock { $0.append(socket) } }
    }
}
