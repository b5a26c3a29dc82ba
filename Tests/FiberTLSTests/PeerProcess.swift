import FiberRuntime
import FiberTesting
import Foundation

/// A real TLS peer in a child process (`openssl s_server`, a Python `ssl`
/// server) on a loopback port, stopped by its PID.
struct PeerProcess {
    let process: ChildProcess
    let port: Int
    let log: String

    struct StartError: Error, CustomStringConvertible { let description: String }

    /// Starts `arguments` (with `{{PORT}}` replaced by a free port) and waits
    /// until its output contains `ready`.
    static func start(_ path: String, _ arguments: [String], ready: String) async throws -> PeerProcess {
        var lastLog = ""
        for _ in 1...5 {
            let port = try await freePort()
            let log = NSTemporaryDirectory() + "fiber-peer-\(getpid())-\(port).log"
            let process = try ChildProcess.spawn(path, arguments: arguments.map { $0.replacingOccurrences(of: "{{PORT}}", with: "\(port)") },
                                                 output: log)
            let deadline = ContinuousClock.now + .seconds(15)
            while ContinuousClock.now < deadline {
                let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
                if text.contains(ready) { return PeerProcess(process: process, port: port, log: log) }
                if !process.isRunning { lastLog = text; break }
                try await Task.sleep(for: .milliseconds(10))
            }
            await process.terminate()
            if !lastLog.contains("in use") { break }
        }
        throw StartError(description: "\(path) did not start: \(lastLog)")
    }

    func stop() async {
        await process.terminate()
        try? FileManager.default.removeItem(atPath: log)
    }

    /// A port that was free a moment ago.
    private static func freePort() async throws -> Int {
        let listener = try await SocketListener.listen(host: "127.0.0.1", port: 0)
        let port = listener.port
        await listener.close()
        return port
    }
}

/// Starts a Python server that answers one request per connection with a
/// close-delimited body, then closes with (`closeNotify`) or without TLS's close_notify.
func startPythonTLSServer(pki: TestCertificates, body: String, closeNotify: Bool) async throws -> PeerProcess {
    let script = """
    import socket, ssl, sys
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(sys.argv[2], sys.argv[3])
    listener = socket.create_server(("127.0.0.1", int(sys.argv[1])))
    print("READY", flush=True)
    while True:
        raw, _ = listener.accept()
        try:
            conn = context.wrap_socket(raw, server_side=True)
            request = b""
            while b"\\r\\n\\r\\n" not in request:
                chunk = conn.recv(4096)
                if not chunk:
                    break
                request += chunk
            conn.sendall(b"HTTP/1.1 200 OK\\r\\nConnection: close\\r\\n\\r\\n" + sys.argv[4].encode())
            if sys.argv[5] == "notify":
                conn.unwrap().close()
            else:
                conn.close()  # no close_notify: Python's ssl sockets only send it on unwrap()
        except Exception as error:
            print("error", error, flush=True)
    """
    return try await PeerProcess.start("/usr/bin/env", ["python3", "-c", script, "{{PORT}}", pki.path("chain.pem"), pki.path("leaf.key"),
                                                        body, closeNotify ? "notify" : "cut"], ready: "READY")
}
