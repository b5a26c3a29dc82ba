import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A real nginx for one test: its own configuration, files and logs in a fresh
/// temporary directory, listening on an ephemeral loopback port, run as a
/// child process and stopped by its PID (SIGTERM, then wait) at the end.
///
/// nginx runs in the foreground (`daemon off`) as a single process
/// (`master_process off`), so the PID it has is the only process to stop, and
/// it never changes user (the tests may run as root).
public final class NginxServer: Sendable {
    /// Where the Debian package installs nginx.
    public static let binary = "/usr/sbin/nginx"
    /// True when nginx is installed; suites are `.enabled(if:)` this.
    public static var isInstalled: Bool { FileManager.default.isExecutableFile(atPath: binary) }

    /// The temporary directory that holds everything of this server.
    public let directory: String
    /// The document root (`<directory>/www`): files the test creates here are served.
    public let root: String
    /// The loopback port it listens on.
    public let port: Int
    private let process: ChildProcess

    /// True when it listens with `ssl`.
    public let isTLS: Bool

    /// `http://127.0.0.1:<port>` (`https` with TLS).
    public var origin: String { "\(isTLS ? "https" : "http")://127.0.0.1:\(port)" }

    /// The URL of `path` (starting with `/`) on this server.
    public func url(_ path: String) -> String { origin + path }

    /// The path of `relative` inside the document root.
    public func file(_ relative: String) -> String { root + "/" + relative }

    private init(directory: String, port: Int, process: ChildProcess, isTLS: Bool) {
        self.isTLS = isTLS
        self.directory = directory
        self.root = directory + "/www"
        self.port = port
        self.process = process
    }

    /// What went wrong starting nginx.
    public struct StartError: Error, CustomStringConvertible {
        public let description: String
    }

    /// Writes the configuration and starts nginx.
    ///
    /// - Parameters:
    ///   - server: directives inside the `server { }` block (after `listen` and `root`);
    ///     `{{PORT}}`, `{{ROOT}}` and `{{DIR}}` are replaced by the port, the
    ///     document root and the temporary directory.
    ///   - http: extra directives of the `http { }` block, same placeholders.
    ///   - tls: listen with `ssl` (the `server` directives then name the certificate and key).
    ///   - http2: listen with `http2`: over TLS, ALPN offers `h2` and `http/1.1`; in cleartext,
    ///     nginx speaks h2c with prior knowledge only (no HTTP/1.1 on that port).
    ///   - prepare: creates files in the document root before nginx starts.
    public static func start(
        server: String, http: String = "", tls: Bool = false, http2: Bool = false,
        prepare: (_ root: String) throws -> Void = { _ in }
    ) async throws -> NginxServer {
        let directory = try TemporaryDirectory.make(prefix: "fiber-nginx")
        do {
            let root = directory + "/www"
            try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
            try prepare(root)
            var lastError = ""
            // The port stays reserved until nginx listens (see `reservePort`); the retries are
            // for what the reservation cannot cover.
            for _ in 1...5 {
                let (reservation, port) = try reservePort()
                defer { close(reservation) }
                let listen = "127.0.0.1:\(port) reuseport\(tls ? " ssl" : "")\(http2 ? " http2" : "")"
                let conf = configuration(directory: directory, listen: [listen], server: server, http: http, port: port)
                try conf.write(toFile: directory + "/nginx.conf", atomically: true, encoding: .utf8)
                let process = try ChildProcess.spawn(
                    binary, arguments: ["-p", directory + "/", "-c", directory + "/nginx.conf", "-e", directory + "/error.log"],
                    output: directory + "/stderr.log")
                let nginx = NginxServer(directory: directory, port: port, process: process, isTLS: tls)
                switch await process.waitUntilListening(port: port) {
                case .listening:
                    return nginx
                case .exited:
                    lastError = nginx.errorLog
                    if lastError.contains("Address already in use") { continue }
                    throw StartError(description: "nginx exited at start (\(process.exitDescription)):\n\(lastError)")
                case .timedOut:
                    let log = nginx.errorLog
                    await nginx.stop()
                    throw StartError(description: "nginx did not listen on port \(port) within 10 s:\n\(log)")
                }
            }
            throw StartError(description: "no free port after 5 tries:\n\(lastError)")
        } catch {
            try? FileManager.default.removeItem(atPath: directory)
            throw error
        }
    }

    /// Stops nginx (SIGTERM to its PID, SIGKILL after 5 s) and removes the
    /// temporary directory (kept when `FIBER_KEEP_NGINX_DIR` is set).
    ///
    /// - Returns: problems worth a test failure: nginx needed SIGKILL, or its
    ///   error log has `[emerg]`, `[alert]` or `[crit]` lines.
    @discardableResult
    public func stop() async -> [String] {
        var problems: [String] = []
        if await !process.terminate() { problems.append("nginx (pid \(process.pid)) ignored SIGTERM for 5 s and was killed") }
        let serious = errorLog.split(separator: "\n").filter { $0.contains("[emerg]") || $0.contains("[alert]") || $0.contains("[crit]") }
        if !serious.isEmpty { problems.append("nginx logged:\n" + serious.joined(separator: "\n")) }
        if ProcessInfo.processInfo.environment["FIBER_KEEP_NGINX_DIR"] == nil {
            try? FileManager.default.removeItem(atPath: directory)
        }
        return problems
    }

    /// nginx's error log so far (for failure messages).
    public var errorLog: String {
        let log = (try? String(contentsOfFile: directory + "/error.log", encoding: .utf8)) ?? ""
        let stderr = (try? String(contentsOfFile: directory + "/stderr.log", encoding: .utf8)) ?? ""
        return log + stderr
    }

    // MARK: Start-up

    /// The whole configuration of one nginx that keeps everything in `directory` (its pid,
    /// logs and temporary files; the document root is `directory/www`) and runs in the
    /// foreground as one process that never changes user: one `server` block with a
    /// `listen` directive for each of `listen` (`127.0.0.1:8080 ssl`, `[fd00::2]:80`) and
    /// the directives `server`; `http` adds to the `http` block. `{{PORT}}` (`port`),
    /// `{{ROOT}}` and `{{DIR}}` in `server` and `http` are replaced.
    public static func configuration(directory: String, listen: [String], server: String, http: String = "", port: Int = 0)
        -> String {
        func fill(_ text: String) -> String {
            text.replacingOccurrences(of: "{{PORT}}", with: String(port))
                .replacingOccurrences(of: "{{ROOT}}", with: directory + "/www")
                .replacingOccurrences(of: "{{DIR}}", with: directory)
        }
        let listenLines = listen.map { "        listen \($0);" }.joined(separator: "\n")
        return """
        daemon off;
        master_process off;
        worker_processes 1;
        pid \(directory)/nginx.pid;
        error_log \(directory)/error.log info;
        events { worker_connections 1024; }
        http {
            access_log off;
            client_body_temp_path \(directory)/client_body;
            proxy_temp_path \(directory)/proxy;
            fastcgi_temp_path \(directory)/fastcgi;
            uwsgi_temp_path \(directory)/uwsgi;
            scgi_temp_path \(directory)/scgi;
            types { text/plain txt; application/json json; text/html html; }
            default_type application/octet-stream;
            client_max_body_size 64m;
            sendfile on;
            tcp_nopush on;
            keepalive_timeout 65s;
        \(fill(http))
            server {
        \(listenLines)
                server_name localhost;
                root \(directory)/www;
        \(fill(server))
            }
        }

        """
    }

    /// A loopback port, and the socket that holds it until nginx listens: bound with
    /// `SO_REUSEPORT`, never listening, so that nginx (`listen … reuseport`) can bind
    /// beside it while another test's server cannot take the port in between. (A port
    /// found free and closed again was once taken by a plain server before nginx, which
    /// keeps retrying its bind, gave up: the TLS test then spoke to the wrong server.)
    private static func reservePort() throws -> (fd: Int32, port: Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw StartError(description: "socket failed: errno \(errno)") }
        var on: Int32 = 1
        var address = LoopbackSocket.address(port: 0)
        let bound = setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &on, socklen_t(MemoryLayout<Int32>.size)) == 0
            && withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            } == 0
        guard bound else {
            let error = errno
            close(fd)
            throw StartError(description: "reserving a port failed: errno \(error)")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }
}
