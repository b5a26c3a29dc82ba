import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// nghttpd (Debian's nghttp2-server), the HTTP/2 server of the nghttp2 project, serving a
/// temporary directory on a loopback port: over TLS (ALPN `h2`, the test certificates) or
/// h2c with prior knowledge (`--no-tls`). POST and PUT bodies are echoed (`--echo-upload`).
/// A child process, stopped by its PID.
public final class NghttpdServer: Sendable {
    /// Where the Debian package installs nghttpd.
    public static let binary = "/usr/sbin/nghttpd"
    /// True when nghttpd is installed; suites are `.enabled(if:)` this.
    public static var isInstalled: Bool { FileManager.default.isExecutableFile(atPath: binary) }

    /// The temporary directory that holds everything of this server.
    public let directory: String
    /// The document root (`<directory>/www`).
    public let root: String
    /// The loopback port it listens on.
    public let port: Int
    /// True when it speaks TLS.
    public let isTLS: Bool
    private let process: ChildProcess

    /// `https://127.0.0.1:<port>`, or `http://` for h2c.
    public var origin: String { "\(isTLS ? "https" : "http")://127.0.0.1:\(port)" }

    /// The URL of `path` (starting with `/`) on this server.
    public func url(_ path: String) -> String { origin + path }

    private init(directory: String, port: Int, isTLS: Bool, process: ChildProcess) {
        self.directory = directory
        self.root = directory + "/www"
        self.port = port
        self.isTLS = isTLS
        self.process = process
    }

    /// nghttpd did not start.
    public struct StartError: Error, CustomStringConvertible {
        public let description: String
    }

    /// Starts nghttpd.
    ///
    /// - Parameters:
    ///   - certificates: the test PKI (`chain.pem`, `leaf.key`); `nil` for h2c (`--no-tls`).
    ///   - options: more nghttpd options, e.g. `--max-concurrent-streams=2`, `--trailer=x-t: v`.
    ///   - prepare: creates the files it serves in the document root.
    /// - Throws: `StartError` when it does not listen.
    public static func start(
        certificates: TestCertificates?, options: [String] = [], prepare: (_ root: String) throws -> Void = { _ in }
    ) async throws -> NghttpdServer {
        let directory = try TemporaryDirectory.make(prefix: "fiber-nghttpd")
        do {
            let root = directory + "/www"
            try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
            try prepare(root)
            var lastLog = ""
            // nghttpd binds its port itself: a port found free may be taken before it does, hence the retries.
            for _ in 1...5 {
                let (fd, port, _) = LoopbackSocket.bindAnyPort()
                close(fd)
                var arguments = ["--address=127.0.0.1", "--htdocs=" + root, "--echo-upload"] + options
                if let certificates {
                    arguments += [String(port), certificates.path("leaf.key"), certificates.path("chain.pem")]
                } else {
                    arguments += ["--no-tls", String(port)]
                }
                let process = try ChildProcess.spawn(binary, arguments: arguments, output: directory + "/nghttpd.log")
                let server = NghttpdServer(directory: directory, port: port, isTLS: certificates != nil, process: process)
                switch await process.waitUntilListening(port: port) {
                case .listening:
                    return server
                case .exited:
                    lastLog = server.log
                case .timedOut:
                    let log = server.log
                    await server.stop()
                    throw StartError(description: "nghttpd did not listen on port \(port) within 10 s:\n\(log)")
                }
            }
            throw StartError(description: "nghttpd did not start after 5 tries:\n\(lastLog)")
        } catch {
            try? FileManager.default.removeItem(atPath: directory)
            throw error
        }
    }

    /// What nghttpd printed.
    public var log: String { (try? String(contentsOfFile: directory + "/nghttpd.log", encoding: .utf8)) ?? "" }

    /// Stops nghttpd (SIGTERM to its PID, SIGKILL after 5 s) and removes its directory.
    ///
    /// - Returns: false if it had to be killed.
    @discardableResult
    public func stop() async -> Bool {
        let stopped = await process.terminate()
        try? FileManager.default.removeItem(atPath: directory)
        return stopped
    }
}
