import ArgumentParser
import Fiber
import FiberCommandLine
import FiberRuntime
import FiberTesting
import Foundation
import Testing

/// `--proxy URL` and `--no-proxy` on the request commands and `bench`, through
/// tinyproxy and the SOCKS5 peer; a `--proxy` that cannot work is a usage error;
/// proxy failures exit with their own statuses.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct ProxyOptionTests {
    /// The SOCKS5 peer (`Scripts/socks5_peer.py`) with `arguments`, logging each tunnel;
    /// `body` gets it and the lines logged so far.
    static func withSOCKSPeer(_ arguments: [String] = [],
                              _ body: (_ port: Int, _ tunnels: () -> [Substring]) async throws -> Void) async throws {
        let log = NSTemporaryDirectory() + "fiber-cli-socks-\(UUID().uuidString).log"
        defer { try? FileManager.default.removeItem(atPath: log) }
        let peer = try PythonPeer(script: "socks5_peer.py", arguments: arguments + ["--log", log])
        defer { peer.stop() }
        try await body(peer.port) { ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n") }
    }

    @Test(.enabled(if: ProxyProcess.hasTinyproxy, "tinyproxy is not installed at /usr/bin/tinyproxy (Scripts/setup installs it)"))
    func getGoesThroughTinyproxy() async throws {
        let proxy = try await ProxyProcess.tinyproxy()
        do {
            try await CommandTests.withServer { server in
                let (out, code) = try await CommandTests.run(Get.self, [server.url("/json"), "--proxy", "http://127.0.0.1:\(proxy.port)"])
                #expect(code == 0, "\(out.standardError)")
                #expect(out.standardOutput.contains(#"{"ok":true}"#))
                #expect(server.lastRequest?.headers.first(name: "Via")?.contains("fiber-test-proxy") == true)
                #expect(proxy.log.contains("GET http://127.0.0.1:\(server.port)/json HTTP/1.1"), "\(proxy.log)")
            }
        } catch {
            await proxy.stop()
            throw error
        }
        await proxy.stop()
    }

    /// `--curl` prints a command that takes the same way: curl's `--proxy` with its
    /// `NO_PROXY` cleared, or `--noproxy '*'`; nothing when the environment decides.
    @Test func theCurlCommandTakesTheSameProxy() async throws {
        try await CommandTests.withServer { server in
            let url = server.url("/json")
            let (direct, directCode) = try await CommandTests.run(Get.self, [url, "--no-proxy", "--curl"])
            #expect(directCode == 0 && direct.standardError == "curl --noproxy '*' -H 'Accept: */*' '\(url)'\n", "\(direct.standardError)")
            let (plain, _) = try await CommandTests.run(Get.self, [url, "--curl"])
            #expect(!plain.standardError.contains("proxy"), "\(plain.standardError)")
        }
        let command = CurlCommand.render(method: "GET", url: "http://h/", headers: [], body: nil, proxy: "socks5h://u:it's@127.0.0.1:1080")
        #expect(command == #"curl --noproxy '' --proxy 'socks5h://u:it'\''s@127.0.0.1:1080' 'http://h/'"#)
    }

    @Test func postGoesThroughTheSOCKSPeerWithCredentials() async throws {
        try await Self.withSOCKSPeer(["--user", "bob", "--password", "hunter2"]) { port, tunnels in
            try await CommandTests.withServer { server in
                let (out, code) = try await CommandTests.run(Post.self, ["http://localhost:\(server.port)/echo", "name=Ada",
                                                                         "--proxy", "socks5h://bob:hunter2@127.0.0.1:\(port)"])
                #expect(code == 0, "\(out.standardError)")
                #expect(out.standardOutput == #"{"name":"Ada"}"#)
                #expect(tunnels() == ["3 localhost \(server.port)"])
            }
        }
    }

    /// A load test through a proxy says so, and its requests all go through it (one tunnel: one connection).
    @Test func benchGoesThroughTheProxyAndSaysSo() async throws {
        try await Self.withSOCKSPeer { port, tunnels in
            try await CommandTests.withServer { server in
                let (out, code) = try await CommandTests.run(Bench.self, [server.url("/json"), "-c", "1", "-d", "30", "--requests", "20",
                                                                          "--warmup", "0", "--proxy", "socks5://127.0.0.1:\(port)"])
                #expect(code == 0, "\(out.standardError)")
                #expect(out.standardError.contains("through socks5://127.0.0.1:\(port)"), "\(out.standardError)")
                #expect(tunnels() == ["1 127.0.0.1 \(server.port)"])
                #expect(server.requestCount == 20 && server.connectionCount == 1)
            }
        }
    }

    @Test func aWebSocketSessionGoesThroughTheProxy() async throws {
        try await Self.withSOCKSPeer { port, tunnels in
            let server = try await TestWebSocketServer.start()
            let (out, code) = try await CommandTests.run(WS.self, [server.url, "--send", "hello", "--proxy", "socks5://127.0.0.1:\(port)"])
            await server.shutdown()
            #expect(code == 0, "\(out.standardError)")
            #expect(out.standardOutput == "hello\n")
            #expect(tunnels().count == 1 && tunnels().first?.hasPrefix("1 127.0.0.1 ") == true, "\(tunnels())")
        }
    }

    @Test func aProxyThatCannotWorkIsAUsageErrorThatNeverShowsThePassword() throws {
        let cases = [("ftp://proxy:21", "has the scheme ftp"), ("https://proxy:443", "TLS to the proxy is not supported"),
                     ("http://me:pa55word@:3128", "(http://***@:3128)"), ("socks5://proxy:0", "has a port out of range"),
                     ("socks5://proxy:1080/path", "has a path")]
        for (value, words) in cases {
            do {
                _ = try Get.parse(["http://127.0.0.1:9/", "--proxy", value])
                Issue.record("\(value) was accepted")
            } catch {
                let message = Get.message(for: error)
                #expect(Get.exitCode(for: error).rawValue == FiberExitCode.usage.rawValue, "\(value)")
                #expect(message.hasPrefix("--proxy ") && message.contains(words), "\(value): \(message)")
                #expect(!message.contains("pa55word"), "\(message)")
            }
        }
        // The same check on `bench` and `ws`; a good value parses with `--no-proxy` beside it.
        #expect(throws: (any Error).self) { try Bench.parse(["http://127.0.0.1:9/", "--proxy", "ftp://proxy"]) }
        #expect(throws: (any Error).self) { try WS.parse(["ws://127.0.0.1:9/", "--proxy", "ftp://proxy"]) }
        let parsed = try Get.parse(["http://127.0.0.1:9/", "--proxy", "socks5://u:p@127.0.0.1:1080", "--no-proxy"])
        #expect(parsed.options.proxy.configuration == .url("socks5://u:p@127.0.0.1:1080"))
        #expect(try Get.parse(["http://127.0.0.1:9/", "--no-proxy"]).options.proxy.configuration == ProxyConfiguration.none)
        #expect(try Get.parse(["http://127.0.0.1:9/"]).options.proxy.configuration == .environment)
    }

    @Test func proxyFailuresExitWithTheirOwnStatuses() async throws {
        let refusing = RefusingPort()
        try await ExitCodeTests.expectExit(.connectFailed, ["http://127.0.0.1:9/", "--proxy", "http://127.0.0.1:\(refusing.port)"],
                                           saying: "could not connect to the proxy")
        try await Self.withSOCKSPeer(["--user", "bob", "--password", "hunter2"]) { port, tunnels in
            try await ExitCodeTests.expectExit(.proxyFailure, ["http://127.0.0.1:9/", "--proxy", "socks5://bob:wrong@127.0.0.1:\(port)"],
                                               saying: "authentication")
            #expect(tunnels().isEmpty)
        }
    }
}

/// The environment's proxies and `--no-proxy`, in the `fiber` binary (the test
/// process's own environment is left alone: tests run in parallel).
@Suite(.timeLimit(.minutes(1)), .enabled(if: FiberBinary.exists, "the fiber binary is not built"))
struct ProxyEnvironmentBinaryTests {
    /// Runs `fiber` with `variables` set; returns its output and how it ended.
    static func run(_ variables: [String], _ arguments: [String]) async throws -> (String, String) {
        let log = NSTemporaryDirectory() + "fiber-proxy-env-\(UUID().uuidString).log"
        defer { try? FileManager.default.removeItem(atPath: log) }
        let child = try ChildProcess.spawn("/usr/bin/env", arguments: variables + [FiberBinary.path] + arguments, output: log)
        _ = await child.waitForSuccess(timeout: .seconds(30))
        return ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "", child.exitDescription)
    }

    @Test func theEnvironmentsProxyIsUsedUnlessNoProxy() async throws {
        try await ProxyOptionTests.withSOCKSPeer { port, tunnels in
            try await CommandTests.withServer { server in
                // `env` takes its `-u` options before the assignments.
                let environment = ["-u", "http_proxy", "-u", "HTTP_PROXY", "-u", "no_proxy", "-u", "NO_PROXY",
                                   "all_proxy=socks5://127.0.0.1:\(port)"]
                let (proxied, proxiedExit) = try await Self.run(environment, ["get", server.url("/json")])
                #expect(proxiedExit == "exit status 0" && proxied.contains(#"{"ok":true}"#), "\(proxied)")
                #expect(tunnels() == ["1 127.0.0.1 \(server.port)"])
                let (direct, directExit) = try await Self.run(environment, ["get", server.url("/json"), "--no-proxy"])
                #expect(directExit == "exit status 0" && direct.contains(#"{"ok":true}"#), "\(direct)")
                #expect(tunnels().count == 1 && server.requestCount == 2)
            }
        }
    }

    @Test func anEnvironmentProxyThatCannotWorkIsAUsageErrorNamingTheVariable() async throws {
        let (text, exit) = try await Self.run(["-u", "http_proxy", "HTTP_PROXY=ftp://me:pa55word@proxy"],
                                              ["get", "http://127.0.0.1:9/"])
        #expect(exit == "exit status 64", "\(text)")
        #expect(text.contains("the environment's HTTP_PROXY has the scheme ftp") && !text.contains("pa55word"), "\(text)")
    }
}
