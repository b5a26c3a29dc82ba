import FiberRuntime
import FiberTesting
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The project's test server inside a row's servers' namespace, in this process:
/// its loop's thread joins the namespace before the server listens, so the
/// listening socket, and every connection it accepts, belongs there. The test
/// reads the server's counters directly.
enum NamespaceTestServer {
    /// Starts a `TestHTTPServer` on `network.serverIPv4:port` on a loop of its own inside the servers' namespace.
    ///
    /// - Throws: `SystemCommand.Failure` when the loop cannot join the namespace; the server's errors.
    static func start(in network: FaultNetwork, port: Int = 8081) async throws -> (server: TestHTTPServer, group: EventLoopGroup) {
        let group = EventLoopGroup(loopCount: 1, name: "fault-server")
        do {
            try await network.joinServer(group.loops[0])
            let server = try await TestHTTPServer.start(host: network.serverIPv4, port: port, on: group.loops[0])
            return (server, group)
        } catch {
            try? await group.shutdown()
            throw error
        }
    }
}

/// A real nginx inside a row's servers' namespace (`ip netns exec`), serving a folder on
/// port 80 of the server's IPv4 and IPv6 addresses: `/files/…` at full speed,
/// `/slow/…` the same files at 512 KiB/s.
final class NamespaceNginx: Sendable {
    let directory: String
    private let process: ChildProcess

    private init(directory: String, process: ChildProcess) {
        self.directory = directory
        self.process = process
    }

    /// Writes `files` (name → bytes) into the document root and starts nginx; returns once it
    /// accepts connections from `loop` (a loop in the client's namespace).
    ///
    /// - Throws: `SystemCommand.Failure` when nginx is missing, exits, or does not listen within 10 s.
    static func start(in network: FaultNetwork, files: [String: [UInt8]], probeOn loop: EventLoop) async throws -> NamespaceNginx {
        guard let nginx = SystemCommand.find("nginx"), let ip = SystemCommand.find("ip") else {
            throw SystemCommand.Failure(description: "nginx is not installed (Scripts/setup installs it)")
        }
        let directory = NSTemporaryDirectory() + "fiber-fault-nginx-\(network.serverNamespace)-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory + "/www/files", withIntermediateDirectories: true)
        for (name, bytes) in files {
            guard FileManager.default.createFile(atPath: directory + "/www/files/" + name, contents: Data(bytes)) else {
                throw SystemCommand.Failure(description: "could not write \(name) into \(directory)")
            }
        }
        try configuration(network: network, directory: directory)
            .write(toFile: directory + "/nginx.conf", atomically: true, encoding: .utf8)
        let process = try ChildProcess.spawn(
            ip, arguments: ["netns", "exec", network.serverNamespace, nginx, "-p", directory + "/", "-c", directory + "/nginx.conf",
                            "-e", directory + "/error.log"],
            output: directory + "/stderr.log")
        let server = NamespaceNginx(directory: directory, process: process)
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline, process.isRunning {
            var options = SocketOptions()
            options.connectTimeout = .seconds(1)
            if let stream = try? await SocketStream.connect(host: network.serverIPv4, port: 80, on: loop, options: options) {
                await stream.close()
                return server
            }
            try? await Task.sleep(for: .milliseconds(20))
        }
        let log = server.log
        await server.stop()
        throw SystemCommand.Failure(description: "nginx did not listen in \(network.serverNamespace) (\(process.exitDescription)): \(log)")
    }

    /// nginx's error output so far.
    var log: String {
        ["/error.log", "/stderr.log"].map { (try? String(contentsOfFile: directory + $0, encoding: .utf8)) ?? "" }.joined()
    }

    /// Stops nginx (SIGTERM to its PID, SIGKILL after 5 s) and removes its folder.
    func stop() async {
        await process.terminate()
        try? FileManager.default.removeItem(atPath: directory)
    }

    private static func configuration(network: FaultNetwork, directory: String) -> String {
        NginxServer.configuration(
            directory: directory, listen: ["\(network.serverIPv4):80", "[\(network.serverIPv6)]:80"],
            server: "location /files/ { }\nlocation /slow/ { alias {{ROOT}}/files/; limit_rate 512k; }")
    }
}
