import Fiber
import FiberRuntime
import FiberTesting
import Foundation
import Testing

/// Upload progress read as an `AsyncStream`, over real loopback sockets: the
/// reports arrive in order and the stream ends with the call, however it ends.
@Suite("Upload progress as a stream", .timeLimit(.minutes(1)))
struct UploadProgressStreamTests {
    /// Reads `progress` to its end in a task; the task's value is every report it saw.
    static func reading(_ progress: AsyncStream<TransferProgress>,
                        atEnd: @escaping @Sendable () -> Void = {}) -> Task<[TransferProgress], Never> {
        Task {
            var seen: [TransferProgress] = []
            for await step in progress { seen.append(step) }
            atEnd()
            return seen
        }
    }

    @Test func aFileUploadReportsInOrderAndTheStreamEndsWithTheCall() async throws {
        let payload = patternedBytes(3 * 1024 * 1024 + 11, seed: 21)
        try await withTemporaryFile(payload) { path in
            // A patient read timeout: in a full parallel run the server's handler may wait its turn for seconds.
            try await withLiveServer(configure: { $0.readIdleTimeout = .seconds(50) }) { server, transport in
                server.route("PUT", "/files/a") { _ in .status(201) }
                let fiber = Fiber(server.baseURL) { $0.transport = transport }
                let (request, progress) = fiber.request(.put, "/files/a").body(fileAt: path).uploadProgressStream(every: .zero)
                let reader = Self.reading(progress)
                let response = try await fiber.send(request)
                #expect(response.statusCode == 201)
                let seen = await reader.value
                #expect(!seen.isEmpty)
                #expect(seen.last?.bytes == payload.count && seen.last?.total == payload.count && seen.last?.fraction == 1)
                #expect(seen.map(\.bytes) == seen.map(\.bytes).sorted())
                #expect(server.lastRequest?.body.count == payload.count)
            }
        }
    }

    /// The stream outlives a retried attempt: it ends only when the call does, and its
    /// last report is the whole body of the attempt that succeeded.
    @Test func theStreamEndsAfterTheLastRetryNotTheFirstAttempt() async throws {
        try await withLiveServer { server, transport in
            let attempts = Counter()
            server.route("PUT", "/flaky") { _ in attempts.increment() == 1 ? .status(503) : .status(200) }
            let fiber = Fiber(server.baseURL) {
                $0.transport = transport
                // Long enough that a stream ended by the first attempt would be seen ending before the second.
                $0.interceptors = [RetryInterceptor(maxRetries: 2, baseDelay: 0.3)]
            }
            let payload = Data(patternedBytes(200_000, seed: 22))
            let (request, progress) = fiber.request(.put, "/flaky").body(payload).uploadProgressStream(every: .zero)
            let attemptsAtEnd = Locked(0)
            let reader = Self.reading(progress) { attemptsAtEnd.withLock { $0 = attempts.count } }
            let response = try await fiber.send(request)
            #expect(response.statusCode == 200)
            let seen = await reader.value
            #expect(attemptsAtEnd.withLock { $0 } == 2)
            #expect(seen.last?.bytes == payload.count)
        }
    }

    @Test func aFailedCallEndsTheStream() async throws {
        let listener = try await SocketListener.listen(host: "127.0.0.1", port: 0)
        let closedPort = listener.port
        await listener.close()
        let fiber = Fiber("http://127.0.0.1:\(closedPort)")
        let (request, progress) = fiber.request(.post, "/x").body(Data(count: 1_000)).uploadProgressStream()
        let reader = Self.reading(progress)
        await expectFiberError({ if case .networkError = $0 { true } else { false } }) {
            try await fiber.send(request)
        }
        _ = await reader.value
    }

    @Test func aCancelledCallEndsTheStream() async throws {
        try await withLiveServer { server, transport in
            let arrived = Locked(false)
            server.route("POST", "/slow") { _ in
                arrived.withLock { $0 = true }
                try? await Task.sleep(for: .seconds(30))
                return .status(200)
            }
            let fiber = Fiber(server.baseURL) { $0.transport = transport }
            let (request, progress) = fiber.request(.post, "/slow").body(Data(count: 10_000)).uploadProgressStream()
            let reader = Self.reading(progress)
            let call = Task { try await fiber.send(request) }
            try await waitUntil("the request reached the server") { arrived.withLock { $0 } }
            call.cancel()
            _ = await call.result
            let seen = await reader.value
            #expect(seen.last?.bytes == 10_000)
        }
    }

    /// A request made and never sent ends its stream when it goes.
    @Test func aRequestDroppedUnsentEndsItsStream() async {
        let fiber = Fiber("http://127.0.0.1:9")
        let progress = fiber.request(.post, "/x").body(Data(count: 10)).uploadProgressStream().progress
        let seen = await Self.reading(progress).value
        #expect(seen.isEmpty)
    }
}
