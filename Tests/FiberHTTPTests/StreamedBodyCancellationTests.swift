@testable import FiberRuntime
import FiberTesting
import Testing

/// A streamed body's reader that is cancelled while it waits for bytes stops
/// waiting: it throws `.cancelled`, and the half-read body's connection is
/// closed rather than pooled.
@Suite("Streamed body cancellation")
struct StreamedBodyCancellationTests {
    @Test(.timeLimit(.minutes(1)))
    func aReaderCancelledWhileWaitingThrowsCancelled() async throws {
        try await withClient { client, server in
            server.route("/drip", respond: .stream { writer in
                try await writer.write([1, 2, 3])
                try await writer.sleep(for: .seconds(30))
            })
            let response = try await client.stream(HTTPClientRequest(url: server.url("/drip")))
            let body = response.body
            let firstChunk = Locked<[UInt8]?>(nil)
            let reader = Task {
                var chunks = body.makeAsyncIterator()
                let first = try await chunks.next()
                firstChunk.withLock { $0 = first }
                _ = try await chunks.next()   // nothing more comes
            }
            // Wait (by observed state) until the reader waits for the second chunk.
            while firstChunk.withLock({ $0 }) == nil || body.buffer.chunks.withState({ $0.waiter == nil }) {
                try await Task.sleep(for: .milliseconds(2))
            }
            reader.cancel()
            await #expect { try await reader.value } throws: { ($0 as? HTTPClientError)?.kind == .cancelled }
            #expect(firstChunk.withLock { $0 } == [1, 2, 3])
        }
    }
}
