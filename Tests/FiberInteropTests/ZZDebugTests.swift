import FiberRuntime
import Testing
import Foundation

@Suite struct ZZDebugTests {
    @Test func debugTiming() async throws {
        let nginx = try await NginxServer.start(server: ConnectionInteropTests.server)
        let pid = try String(contentsOfFile: nginx.directory + "/nginx.pid", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        print("pid", pid)
        print(try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8).split(separator: "\n").filter { $0.hasPrefix("Sig") || $0.hasPrefix("State") }.joined(separator: "\n"))
        await nginx.stop()
        print(nginx.errorLog.suffix(600))
    }
}
