import FiberRuntime
import FiberTesting
import Testing

@Suite("Leak check", .timeLimit(.minutes(1)))
struct LeakCheckTests {
    @Test func reportsAnOpenListenerUntilItCloses() async throws {
        let group = EventLoopGroup(loopCount: 2, name: "leak")
        let listener = try await SocketListener.listen(on: group.loops[1])
        let leaked = try await group.leakedHandles(within: .milliseconds(50))
        #expect(leaked == [1: 1])
        await listener.close()
        let afterClose = try await group.leakedHandles()
        #expect(afterClose.isEmpty)
        try await group.shutdown()
    }
}
