import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A real proxy for one test, in a child process: tinyproxy (HTTP, `CONNECT`,
/// Basic authentication) or dante (SOCKS5). Its configuration and log live in
/// a fresh temporary directory, it listens on a free 127.0.0.1 port, and
/// `stop()` ends it by its PID. The packages' own services are never used.
public final class ProxyProcess: Sendable {
    /// Where Debian's `tinyproxy` package installs it.
    public static let tinyproxyPath = "/usr/bin/tinyproxy"
    /// Where Debian's `dante-server` package installs it.
    public static let dantePath = "/usr/sbin/danted"
    /// True when tinyproxy is installed.
    public static var hasTinyproxy: Bool { FileManager.default.isExecutableFile(atPath: tinyproxyPath) }
    /// True when dante is installed.
    public static var hasDante: Bool { FileManager.default.isExecutableFile(atPath: dantePath) }

    /// The port it listens on, on 127.0.0.1.
    public let port: Int
    /// The temporary directory of its configuration and log.
    public let directory: String
    private let logPath: String
    private let process: ChildProcess

    /// The proxy did not start.
    public struct StartError: Error, CustomStringConvertible {
        public let description: String
    }

    private init(port: Int, directory: String, logPath: String, process: ChildProcess) {
        self.port = port
        self.directory = directory
        self.logPath = logPath
        self.process = process
    }

    /// Its log so far (tinyproxy logs each request line; dante each connection).
    public var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    /// Starts tinyproxy allowing 127.0.0.1, naming itself `fiber-test-proxy` in
    /// `Via`, with `directives` added (`BasicAuth user password`, `ConnectPort 443`).
    ///
    /// - Throws: `StartError` when it does not start.
    public static func tinyproxy(_ directives: String = "") async throws -> ProxyProcess {
        try await start(tinyproxyPath, ready: "Accepting connections") { port, directory in
            let configuration = """
                Port \(port)
                Listen 127.0.0.1
                Timeout 30
                MaxClients 32
                LogLevel Info
                LogFile "\(directory)/proxy.log"
                Allow 127.0.0.1
                ViaProxyName "fiber-test-proxy"
                \(directives)

                """
            try configuration.write(toFile: directory + "/proxy.conf", atomically: true, encoding: .utf8)
            return ["-d", "-c", directory + "/proxy.conf"]
        }
    }

    /// Starts dante without authentication, allowing clients of 127.0.0.0/8 to
    /// any destination except those `blocked` lists (`127.0.0.1/32 port = 9`).
    ///
    /// - Throws: `StartError` when it does not start.
    public static func dante(blocking blocked: [String] = []) async throws -> ProxyProcess {
        try await start(dantePath, ready: "running") { port, directory in
            let blocks = blocked.map { "socks block { from: 0.0.0.0/0 to: \($0) log: error }" }.joined(separator: "\n")
            let configuration = """
                logoutput: \(directory)/proxy.log
                internal: 127.0.0.1 port = \(port)
                external: 127.0.0.1
                socksmethod: none
                clientmethod: none
                user.privileged: root
                user.unprivileged: nobody
                client pass { from: 127.0.0.0/8 to: 0.0.0.0/0 }
                \(blocks)
                socks pass { from: 127.0.0.0/8 to: 0.0.0.0/0 log: connect error }

                """
            try configuration.write(toFile: directory + "/proxy.conf", atomically: true, encoding: .utf8)
            return ["-f", directory + "/proxy.conf", "-N", "1"]
        }
    }

    /// Stops it (SIGTERM to its PID, SIGKILL after a grace period) and removes its directory.
    public func stop() async {
        await process.terminate()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Writes the configuration for a free port (`configure` returns the
    /// arguments) and waits until the log says `ready`; retries on another port
    /// when the process exits first (the port was taken meanwhile).
    private static func start(_ binary: String, ready: String,
                              configure: (_ port: Int, _ directory: String) throws -> [String]) async throws -> ProxyProcess {
        let directory = NSTemporaryDirectory() + "fiber-proxy-\(getpid())-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        // dante drops to `nobody` for parts of its work: its log must stay writable.
        chmod(directory, 0o777)
        var lastLog = ""
        for _ in 1...5 {
            let (fd, port, _) = LoopbackSocket.bindAnyPort()
            close(fd)
            let arguments = try configure(port, directory)
            let logPath = directory + "/proxy.log"
            try? FileManager.default.removeItem(atPath: logPath)
            let process = try ChildProcess.spawn(binary, arguments: arguments, output: directory + "/stdout.log")
            let proxy = ProxyProcess(port: port, directory: directory, logPath: logPath, process: process)
            let deadline = ContinuousClock.now + .seconds(15)
            while ContinuousClock.now < deadline, process.isRunning {
                if proxy.log.contains(ready) { return proxy }
                try await Task.sleep(for: .milliseconds(10))
            }
            lastLog = proxy.log + ((try? String(contentsOfFile: directory + "/stdout.log", encoding: .utf8)) ?? "")
            await process.terminate()
        }
        try? FileManager.default.removeItem(atPath: directory)
        throw StartError(description: "\(binary) did not start: \(lastLog)")
    }
}
