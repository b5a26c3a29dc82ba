import Foundation

/// Bytes compressed by the `brotli` and `zstd` commands (Scripts/setup installs
/// them), so that a client is checked against the reference encoders rather
/// than against itself. Each call runs `/bin/sh` once, in a fresh temporary directory.
public enum CompressionTool {
    /// The command failed or could not start; `description` has its output.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// `input` through `command`, a shell pipeline writing stdout, in which `{IN}` names a file holding `input`.
    ///
    /// - Throws: `Failure` when the command fails; file errors writing the input or reading the output.
    public static func run(_ command: String, input: [UInt8]) async throws -> [UInt8] {
        let directory = NSTemporaryDirectory() + "fiber-codings-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try Data(input).write(to: URL(fileURLWithPath: directory + "/in"))
        let script = command.replacingOccurrences(of: "{IN}", with: directory + "/in") + " > \(directory)/out"
        return try await shell(script, output: directory + "/out", log: directory + "/log")
    }

    /// `inflatedSize` zero bytes through `command` (reading stdin), streamed from /dev/zero (never held whole):
    /// a decompression bomb in that tool's format.
    ///
    /// - Throws: as `run(_:input:)`.
    public static func zeros(_ inflatedSize: Int, through command: String) async throws -> [UInt8] {
        let directory = NSTemporaryDirectory() + "fiber-codings-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        return try await shell("head -c \(inflatedSize) /dev/zero | \(command) > \(directory)/out",
                               output: directory + "/out", log: directory + "/log")
    }

    private static func shell(_ script: String, output: String, log: String) async throws -> [UInt8] {
        let process = try ChildProcess.spawn("/bin/sh", arguments: ["-c", "set -e; " + script], output: log)
        guard await process.waitForSuccess(timeout: .seconds(60)) else {
            let said = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            throw Failure(description: "`\(script)` failed (\(process.exitDescription)): \(said)")
        }
        return try Array(Data(contentsOf: URL(fileURLWithPath: output)))
    }

    /// `input` in brotli at `quality` (0 to 11).
    ///
    /// - Throws: as `run(_:input:)`.
    public static func brotli(_ input: [UInt8], quality: Int = 6) async throws -> [UInt8] {
        try await run("brotli -c -q \(quality) {IN}", input: input)
    }

    /// `input` in one zstd frame, level 19; the frame states its content size unless `contentSize` is false
    /// (the input then comes through a pipe, whose size zstd cannot know).
    ///
    /// - Throws: as `run(_:input:)`.
    public static func zstd(_ input: [UInt8], contentSize: Bool = true) async throws -> [UInt8] {
        try await run(contentSize ? "zstd -q -c -19 {IN}" : "cat {IN} | zstd -q -c -19", input: input)
    }
}
