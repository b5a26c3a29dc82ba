@testable import FiberRuntime
import Synchronization
import Testing

@Suite("Shutdown", .timeLimit(.minutes(1)))
struct ShutdownTests {
    @Test func shutdownFailsPendingWorkAndClosesOpenSockets() async throws {
        let group = EventLoopGroup(loopCount: 2, name: "shutdown")
        let (listener, server) = try await startEcho(on: group.loops[0])
        let client = try await SocketStream.connect(host: "127.0.0.1", port: listener.port, on: group.loops[1])
        let pendingRead = Task { try await client.read() }
        let pendingSleep = Task { try await group.loops[1].sleep(for: .seconds(60)) }
        let ran = Atomic(0)
        for _ in 0..<100 { try group.loops[0].execute { ran.add(1, ordering: .relaxed) } }
        try await Task.sleep(for: .milliseconds(20))

        try await group.shutdown()

        #expect(ran.load(ordering: .relaxed) == 100, "work queued before shutdown still runs")
        await #expect { try await pendingRead.value } throws: { ($0 as? TransportError)?.kind == .eventLoopShutdown }
        await #expect(throws: EventLoopError.shutdown) { try await pendingSleep.value }
        server.cancel()
        _ = await server.value
        #expect(await !client.isOpen)
    }

    @Test func useAfterShutdownIsAClearError() async throws {
        let group = EventLoopGroup(loopCount: 1, name: "after")
        let loop = group.loops[0]
        try await group.shutdown()

        #expect(throws: EventLoopError.shutdown) { try loop.execute {} }
        #expect(throws: EventLoopError.shutdown) { try loop.scheduleTask(in: .seconds(1)) {} }
        await #expect(throws: EventLoopError.shutdown) { try await loop.submit { 1 } }
        await #expect(throws: EventLoopError.shutdown) { try await loop.sleep(for: .milliseconds(1)) }
        await #expect { try await SocketStream.connect(host: "127.0.0.1", port: 1, on: loop) } throws: {
            ($0 as? TransportError)?.kind == .eventLoopShutdown
        }
        await #expect { try await SocketListener.listen(on: loop) } throws: { $0 is EventLoopError }
        await #expect(throws: EventLoopError.alreadyShutDown) { try await group.shutdown() }
        // An actor pinned to the dead loop still runs (on a fallback queue), and says where it is.
        let counter = LoopBoundCounter(loop: loop)
        #expect(await counter.increment())
    }

    @Test func shutdownOfAnIdleGroupJoinsItsThreads() async throws {
        for _ in 0..<20 {
            let group = EventLoopGroup(loopCount: 2, name: "churn")
            _ = try await group.loops[1].submit { 1 }
            try await group.shutdown()
        }
    }
}
