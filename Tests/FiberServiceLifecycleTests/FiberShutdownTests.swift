import Fiber
import FiberRuntime
import FiberTesting
import Testing

/// `Fiber.shutdown(gracePeriod:)` against the loopback server, with a
/// transport of the test's own so that its connections can be counted.
@Suite(.timeLimit(.minutes(1)))
struct FiberShutdownTests {
    @Test func aRequestInFlightFinishesWhileNewOnesAreRefusedThenIdleConnectionsClose() async throws {
        let held = try await HeldServer.start()
        let (fiber, transport) = held.client()
        _ = try await fiber.get("/fast")

        let inFlight = Task { try await fiber.get("/slow") }
        try await held.waitForHeld(1)
        #expect(fiber.inFlightRequestCount == 1)
        let shutdown = Task { await fiber.shutdown(gracePeriod: .seconds(30)) }
        try await waitUntil("the shutdown began") { fiber.isShuttingDown }

        let refused = await Result { try await fiber.get("/fast") }
        #expect(refused.fiberError?.isShutdown == true, "\(refused)")
        #expect(refused.fiberError?.description.contains("\(held.baseURL)/fast") == true)
        #expect(held.server.requestCount == 2, "the refused request was not sent")

        await held.gate.open()
        let answered = try await inFlight.value
        #expect(answered.text == "slow done")
        let outcome = await shutdown.value
        #expect(!outcome.cancelledRequests)
        #expect(fiber.inFlightRequestCount == 0)
        let statistics = await transport.client.statistics()
        #expect(statistics == ConnectionPoolStatistics(), "\(statistics)")
        try await waitUntil("the server saw the connection close") { held.server.openConnectionCount == 0 }
        await held.finish()
    }

    @Test func requestsStillInFlightAfterTheGracePeriodAreCancelled() async throws {
        let held = try await HeldServer.start()
        let (fiber, transport) = held.client()
        let inFlight = (0..<3).map { _ in Task { try await fiber.get("/slow") } }
        try await held.waitForHeld(3)

        let outcome = await fiber.shutdown(gracePeriod: .milliseconds(50))
        #expect(outcome.cancelledRequests)
        for task in inFlight {
            let result = await task.result
            #expect(result.isCancelled, "\(result)")
        }
        #expect(fiber.inFlightRequestCount == 0)
        // A cancelled exchange's connection closes on its loop, after the request returned.
        try await waitUntil("the cancelled requests' connections closed") { await transport.client.statistics().open == 0 }
        await held.finish()
    }

    @Test func cancellingTheShutdownEndsTheGracePeriodAtOnce() async throws {
        let held = try await HeldServer.start()
        let (fiber, _) = held.client()
        let inFlight = Task { try await fiber.get("/slow") }
        try await held.waitForHeld(1)

        // A grace period longer than the suite's time limit: only the cancellation can end it.
        let shutdown = Task { await fiber.shutdown(gracePeriod: .seconds(3600)) }
        try await waitUntil("the shutdown began") { fiber.isShuttingDown }
        shutdown.cancel()
        let outcome = await shutdown.value
        #expect(outcome.cancelledRequests)
        let result = await inFlight.result
        #expect(result.isCancelled, "\(result)")
        await held.finish()
    }

    @Test func aShutdownWithNothingInFlightReturnsAndLaterCallsReturnToo() async throws {
        let held = try await HeldServer.start()
        let (fiber, _) = held.client()
        _ = try await fiber.get("/fast")
        #expect(!fiber.isShuttingDown)
        let first = await fiber.shutdown()
        let second = await fiber.shutdown(gracePeriod: .zero)
        #expect(!first.cancelledRequests && !second.cancelledRequests)
        let refused = await Result { try await fiber.stream(fiber.request(.get, "/fast")) }
        #expect(refused.fiberError?.isShutdown == true)
        await held.finish()
    }

    @Test func theSharedTransportStaysOpenForTheOtherClients() async throws {
        let held = try await HeldServer.start()
        let leaving = Fiber(held.baseURL)
        let staying = Fiber(held.baseURL)
        _ = try await leaving.get("/fast")
        await leaving.shutdown()
        let answered = try await staying.get("/fast")
        #expect(answered.text == "fast")
        await held.finish()
    }
}
