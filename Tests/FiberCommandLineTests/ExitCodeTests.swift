import ArgumentParser
import Fiber
import FiberCommandLine
import FiberRuntime
import FiberTesting
import Foundation
import Testing

/// Each kind of failure exits with its own status (`FiberExitCode`), against
/// loopback peers that fail in that way; and the `fiber` binary itself for
/// `--version` and `NO_COLOR`.
@Suite(.serialized) struct ExitCodeTests {
    static func expectExit(_ code: FiberExitCode, _ arguments: [String], saying words: String,
                           sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let (out, status) = try await CommandTests.run(Get.self, arguments)
        #expect(status == code.rawValue, "\(out.standardError)", sourceLocation: sourceLocation)
        #expect(out.standardError.hasPrefix("fiber: ") && out.standardError.contains(words), "\(out.standardError)",
                sourceLocation: sourceLocation)
    }

    @Test func dnsFailureExits6() async throws {
        try await Self.expectExit(.dnsFailure, ["http://no-such-host.invalid/"], saying: "name resolution failed")
    }

    @Test func refusedConnectionExits7() async throws {
        let port = RefusingPort()
        try await Self.expectExit(.connectFailed, ["http://127.0.0.1:\(port.port)/"], saying: "connection refused")
    }

    @Test func untrustedCertificateExits35() async throws {
        try await CommandTests.withServer(tls: true) { server in
            try await Self.expectExit(.tlsFailure, [server.url("/json")], saying: "certificate")
        }
    }

    @Test func silentServerExits28() async throws {
        try await CommandTests.withServer { server in
            server.route("/silent", respond: .fault(.silent))
            try await Self.expectExit(.timeout, [server.url("/silent"), "--timeout", "0.2"], saying: "deadline exceeded")
        }
    }

    @Test func aConnectionCutDuringTheExchangeExits56() async throws {
        try await CommandTests.withServer { server in
            server.route("/cut", respond: .fault(.closeMidBody(after: 5)))
            server.route("/reset", respond: .fault(.reset))
            try await Self.expectExit(.connectionLost, [server.url("/cut")], saying: "closed before the response was complete")
            try await Self.expectExit(.connectionLost, [server.url("/reset")], saying: "reset")
        }
    }

    @Test func redirectLoopAndTooManyRedirectsExit47() async throws {
        try await CommandTests.withServer { server in
            server.route("/a", respond: .redirect(to: "/b"))
            server.route("/b", respond: .redirect(to: "/a"))
            server.route("GET", prefix: "/hop/") { request in
                .redirect(to: "/hop/\((Int(request.path.dropFirst(5)) ?? 0) + 1)")
            }
            try await Self.expectExit(.tooManyRedirects, [server.url("/a")], saying: "redirect loop")
            try await Self.expectExit(.tooManyRedirects, [server.url("/hop/0")], saying: "too many redirects")
            #expect(server.requestCount <= 2 + 11)
        }
    }

    @Test func invalidURLExits3AndStatusesExit4And5() async throws {
        try await Self.expectExit(.invalidURL, ["ftp://127.0.0.1/file"], saying: "invalid URL")
        try await CommandTests.withServer { server in
            server.route("/broken", respond: .text("down", status: 503))
            let (_, notFound) = try await CommandTests.run(Get.self, [server.url("/missing")])
            let (_, unavailable) = try await CommandTests.run(Get.self, [server.url("/broken")])
            #expect(notFound == 4 && unavailable == 5)
        }
    }

    @Test func webSocketSessionsExitWithTheSameStatuses() async throws {
        let port = RefusingPort()
        for (url, code) in [("ws://no-such-host.invalid/", FiberExitCode.dnsFailure), ("ws://127.0.0.1:\(port.port)/", .connectFailed),
                            ("http://127.0.0.1:\(port.port)/", .invalidURL)] {
            let (out, status) = try await CommandTests.run(WS.self, [url, "--send", "x"])
            #expect(status == code.rawValue, "\(url): \(out.standardError)")
            #expect(out.standardError.hasPrefix("fiber: "))
        }
    }

    @Test func errorsWrappedByFiberKeepTheirStatus() {
        let refused = TransportError(.connectionRefused, operation: "connect")
        #expect(FiberExitCode.forError(FiberError.networkError(underlying: refused)) == .connectFailed)
        #expect(FiberExitCode.forError(FiberError.timeout) == .timeout)
        #expect(FiberExitCode.forError(TLSError(.certificateExpired, "expired")) == .tlsFailure)
        #expect(FiberExitCode.forError(CancellationError()) == nil)
        #expect(Set(FiberExitCode.allCases.map(\.rawValue)).count == FiberExitCode.allCases.count)
    }
}

/// The `fiber` binary as a user runs it (`Scripts/test` links it before the tests).
@Suite(.timeLimit(.minutes(1)), .enabled(if: FiberBinary.exists, "the fiber binary is not built"))
struct BinaryFlagTests {
    /// Runs `executable` with `arguments` and `environment` changes; returns what it wrote and whether it succeeded.
    static func run(_ executable: String, _ arguments: [String], environment: [String] = []) async throws -> (String, Bool) {
        let log = NSTemporaryDirectory() + "fiber-flags-\(UUID().uuidString).log"
        defer { try? FileManager.default.removeItem(atPath: log) }
        let child = try ChildProcess.spawn("/usr/bin/env", arguments: environment + [executable] + arguments, output: log)
        let succeeded = await child.waitForSuccess(timeout: .seconds(30))
        return ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "", succeeded)
    }

    @Test func versionPrintsTheLibraryVersion() async throws {
        let (text, succeeded) = try await Self.run(FiberBinary.path, ["--version"])
        #expect(succeeded)
        #expect(text == FiberVersion.current + "\n")
    }

    /// On a terminal (a pseudo-terminal from `script`) the status line is coloured, unless `NO_COLOR` is set.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script"), "util-linux's script is missing"))
    func noColorTurnsColoursOff() async throws {
        let server = try await TestHTTPServer.start()
        server.route("/json", respond: .json(#"{"ok":true}"#))
        let command = "'\(FiberBinary.path)' get '\(server.url("/json"))'"
        let (colored, coloredOK) = try await Self.run("/usr/bin/script", ["-qec", command, "/dev/null"], environment: ["-u", "NO_COLOR"])
        #expect(coloredOK, "\(colored)")
        #expect(colored.contains("HTTP/1.1 200") && colored.contains("\u{1B}["), "\(colored)")
        let (plain, plainOK) = try await Self.run("/usr/bin/script", ["-qec", command, "/dev/null"], environment: ["NO_COLOR=1"])
        #expect(plainOK, "\(plain)")
        #expect(plain.contains("HTTP/1.1 200") && plain.contains("\"ok\": true") && !plain.contains("\u{1B}["), "\(plain)")
        #expect(CommandOutput.wantsColors(isTerminal: true, environment: ["NO_COLOR": ""]))
        #expect(!CommandOutput.wantsColors(isTerminal: false, environment: [:]))
        await server.shutdown()
    }
}
