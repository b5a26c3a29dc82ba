import Fiber
import FiberRuntime
import FiberServiceLifecycle
import FiberTesting
import FiberWebSocket
import Logging
import ServiceLifecycle
import Testing

/// `FiberService` in a `ServiceGroup` of the test's own process.
@Suite(.timeLimit(.minutes(1)))
struct FiberServiceTests {
    private let logger = Logger(label: "FiberServiceTests") { _ in SwiftLogNoOpLogHandler() }

    @Test func aGracefulShutdownDrainsTheClientClosesItsSocketsThenRunReturns() async throws {
        let held = try await HeldServer.start()
        let webSockets = try await TestWebSocketServer.start()
        let (fiber, transport) = held.client()
        let service = FiberService(fiber, gracePeriod: .seconds(30))
        let socket = service.webSockets.register(ReconnectingWebSocket(connect: { WebSocketClient.connect(to: webSockets.url) },
                                                                       strategy: .fixedDelay(0.01)))
        let feed = Task { await socket.start() }
        let events = Task { await socket.events.collect() }
        let group = ServiceGroup(services: [service], logger: logger)
        let running = Task { try await group.run() }
        try await waitUntil("the socket connected") { socket.state == .connected }
        let inFlight = Task { try await fiber.get("/slow") }
        try await held.waitForHeld(1)

        await group.triggerGracefulShutdown()
        try await waitUntil("the socket closed") { socket.state == .disconnected }
        let refused = await Result { try await fiber.get("/slow") }
        #expect(refused.fiberError?.isShutdown == true, "\(refused)")
        await held.gate.open()

        try await running.value
        let answered = try await inFlight.value
        #expect(answered.text == "slow done")
        await feed.value
        let seen = await events.value
        #expect(seen.closeCode == WebSocketCloseCode.goingAway, "\(seen)")
        #expect(webSockets.acceptedCount == 1, "no reconnection")
        let statistics = await transport.client.statistics()
        #expect(statistics == ConnectionPoolStatistics(), "\(statistics)")
        await webSockets.shutdown()
        await held.finish()
    }

    @Test func aCancelledGroupCancelsTheRequestsInFlightAtOnce() async throws {
        let held = try await HeldServer.start()
        let (fiber, _) = held.client()
        // A grace period longer than the suite's limit: only the cancellation can end it.
        let group = ServiceGroup(services: [FiberService(fiber, gracePeriod: .seconds(3600))], logger: logger)
        let running = Task { try await group.run() }
        let inFlight = Task { try await fiber.get("/slow") }
        try await held.waitForHeld(1)

        running.cancel()
        _ = await running.result
        let result = await inFlight.result
        #expect(result.isCancelled, "\(result)")
        #expect(fiber.isShuttingDown)
        await held.finish()
    }

    @Test func itsDescriptionNamesTheClient() {
        let service = FiberService(Fiber("http://127.0.0.1:9"))
        #expect(service.description == "FiberService(http://127.0.0.1:9)")
        #expect(service.gracePeriod == .seconds(30))
    }
}
