import FiberRuntime
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A child process started with `posix_spawn`, with every signal unblocked and
/// at its default disposition: a process spawned from a thread of the
/// cooperative pool would otherwise inherit that thread's blocked signals
/// (SIGTERM among them), which nginx, single-process, never unblocks.
/// (Foundation's `Process` offers no control over the signal mask.)
public final class ChildProcess: Sendable {
    /// The process id.
    public let pid: pid_t
    private let exit = Locked<Int32?>(nil)

    private init(pid: pid_t) { self.pid = pid }

    /// `posix_spawn` failed.
    public struct SpawnError: Error, CustomStringConvertible {
        public let description: String
    }

    /// Starts `path` with `arguments`; stdout and stderr go to the file `output`, stdin is /dev/null.
    ///
    /// - Throws: `SpawnError` when the program cannot be started.
    public static func spawn(_ path: String, arguments: [String], output: String) throws -> ChildProcess {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        // Other tests' sockets must not live on in nginx (glibc 2.34+; libuv's are close-on-exec anyway).
        if let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") {
            typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
            _ = unsafeBitCast(symbol, to: CloseFrom.self)(&actions, 3)
        }

        let argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
        defer { for arg in argv { free(arg) } }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, path, &actions, &attributes, argv, environ)
        guard status == 0 else { throw SpawnError(description: "posix_spawn \(path) failed: \(String(cString: strerror(status)))") }
        return ChildProcess(pid: pid)
    }

    /// False once the process has exited (and been reaped).
    public var isRunning: Bool {
        exit.withLock { exit in
            if exit != nil { return false }
            var status: Int32 = 0
            let result = waitpid(pid, &status, WNOHANG)
            if result == pid || (result < 0 && errno == ECHILD) {
                exit = status
                return false
            }
            return true
        }
    }

    /// How it ended, for messages.
    public var exitDescription: String {
        guard let status = exit.withLock({ $0 }) else { return "running" }
        let signal = status & 0x7F
        return signal == 0 ? "exit status \((status >> 8) & 0xFF)" : "killed by signal \(signal)"
    }

    /// Waits until the process exits, at most `timeout`; true if it exited
    /// with status 0. A process still running afterwards is terminated.
    public func waitForSuccess(timeout: Duration = .seconds(60)) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while isRunning, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(10))
        }
        if isRunning {
            await terminate()
            return false
        }
        return exit.withLock { $0 } == 0
    }

    /// SIGTERM to this PID only, then waits for it to exit; SIGKILL after `grace`.
    ///
    /// - Returns: false if it had to be killed.
    @discardableResult
    public func terminate(grace: Duration = .seconds(5)) async -> Bool {
        guard isRunning else { return true }
        kill(pid, SIGTERM)
        let deadline = ContinuousClock.now + grace
        while isRunning, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(5))
        }
        if isRunning {
            kill(pid, SIGKILL)
            while isRunning { try? await Task.sleep(for: .milliseconds(5)) }
            return false
        }
        return true
    }
}
