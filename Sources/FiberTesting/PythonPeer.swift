import Foundation

/// A Python script of the project's `Scripts/` that serves on 127.0.0.1 and
/// prints its port on its first line (the WebSocket and form peers of the
/// tests). Stopped by its PID.
public final class PythonPeer: Sendable {
    /// The script could not be started, or printed no port.
    public struct StartError: Error, CustomStringConvertible {
        public let description: String
    }

    /// The process.
    public let process: Process
    /// The port it listens on.
    public let port: Int

    /// Whether `python3` can import `module`.
    public static func canImport(_ module: String) -> Bool {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["python3", "-c", "import \(module)"]
        p.standardError = FileHandle.nullDevice
        do { try p.run() } catch { return false }
        p.waitUntilExit()
        return p.terminationStatus == 0
    }

    /// Starts `Scripts/<script>` with port 0 and `arguments`, and waits for its port line.
    ///
    /// - Throws: `StartError` when it does not start or prints no port.
    public init(script: String, arguments: [String] = [], filePath: String = #filePath) throws {
        // The repository's root, from a file three levels down (Tests/Target/File.swift).
        let root = URL(fileURLWithPath: filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", root.appendingPathComponent("Scripts/\(script)").path, "0"] + arguments
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        // Reading the port line orders the test after the script listens.
        var line = Data()
        while let byte = try out.fileHandleForReading.read(upToCount: 1), !byte.isEmpty, byte != Data([0x0A]) { line += byte }
        guard let port = Int(String(decoding: line, as: UTF8.self)) else {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            throw StartError(description: "Scripts/\(script) did not start")
        }
        self.port = port
    }

    /// Kills the process (by its PID) and reaps it.
    public func stop() {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }
}
