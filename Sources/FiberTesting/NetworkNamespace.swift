import FiberRuntime
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A network namespace a test makes (`create()`, `ip netns add`) and deletes
/// (`remove()`): the one way the tests make namespaces, run tools inside them
/// and move a loop's thread into one. The test process's own namespace is never changed.
public final class NetworkNamespace: Sendable {
    /// The name `ip netns` knows it by.
    public let name: String

    /// The namespace called `name`, which `create()` makes.
    public init(name: String) { self.name = name }

    /// Why this process cannot make namespaces (not root, no iproute2, or a probe
    /// namespace could not be made), or nil. Found once, synchronously, so that a
    /// suite's `.enabled(if:)` can read it.
    public static let unavailableReason: String? = {
        if geteuid() != 0 { return "network namespaces need root (this process runs as uid \(geteuid()))" }
        guard let ip = SystemCommand.find("ip") else { return "network namespaces need iproute2's `ip` (Scripts/setup installs it)" }
        let probe = "fiberprobe-\(getpid())"
        guard let added = runBlocking(ip, ["netns", "add", probe]), added == 0 else {
            return "`ip netns add` fails here (no CAP_SYS_ADMIN, or namespaces are not allowed)"
        }
        _ = runBlocking(ip, ["netns", "del", probe])
        return nil
    }()

    /// Makes the namespace (deleting one of that name first, which a killed run may have left).
    ///
    /// - Throws: `SystemCommand.Failure` when `ip netns add` fails.
    public func create() async throws {
        await remove()
        try await SystemCommand.run("ip", ["netns", "add", name])
    }

    /// Deletes the namespace and with it the virtual devices, routes and rules inside; safe to call twice.
    public func remove() async {
        await SystemCommand.attempt("ip", ["netns", "del", name])
    }

    /// Runs `tool` (found by `SystemCommand.find`) inside the namespace (`ip netns exec`); returns what it printed.
    ///
    /// - Throws: `SystemCommand.Failure` when the tool is missing, fails, or runs longer than `timeout`.
    @discardableResult
    public func run(_ tool: String, _ arguments: [String], timeout: Duration = .seconds(10)) async throws -> String {
        guard let path = SystemCommand.find(tool) else { throw SystemCommand.Failure(description: "\(tool) is not installed") }
        return try await SystemCommand.run("ip", ["netns", "exec", name, path] + arguments, timeout: timeout)
    }

    /// Moves `loop`'s thread into the namespace: the sockets it opens from then on belong there.
    ///
    /// - Throws: `SystemCommand.Failure` when `setns(2)` fails.
    public func join(_ loop: EventLoop) async throws {
        let path = "/run/netns/" + name
        try await loop.submit { try Self.joinNamespace(at: path) }
    }

    /// Moves the calling thread (only it: a network namespace is per thread) into the namespace at `path`.
    private static func joinNamespace(at path: String) throws {
        // setns(2) through dlsym: Glibc's Swift module hides it behind _GNU_SOURCE.
        typealias SetNS = @convention(c) (Int32, Int32) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "setns") else {
            throw SystemCommand.Failure(description: "setns is not in this C library")
        }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw SystemCommand.Failure(description: "open \(path): errno \(errno)") }
        defer { close(fd) }
        let cloneNewNet: Int32 = 0x4000_0000
        guard unsafeBitCast(symbol, to: SetNS.self)(fd, cloneNewNet) == 0 else {
            throw SystemCommand.Failure(description: "setns \(path): errno \(errno)")
        }
    }

    /// Runs `path` with `arguments`, output discarded, and waits; its exit status, or nil if it could not start.
    private static func runBlocking(_ path: String, _ arguments: [String]) -> Int32? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return nil }
        process.waitUntilExit()
        return process.terminationStatus
    }
}
