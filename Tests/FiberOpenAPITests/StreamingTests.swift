import Fiber
import FiberOpenAPI
import FiberRuntime
import FiberTesting
import Foundation
import HTTPTypes
import OpenAPIRuntime
import Testing

/// Bodies that stream through `FiberOpenAPITransport` both ways, never collected.
@Suite("Streamed OpenAPI bodies", .timeLimit(.minutes(1)))
struct StreamingTests {
    /// The call returns while the server is still held after its first chunk: the
    /// transport hands the body on as it arrives instead of reading it whole. The rest
    /// then arrives in pieces, each checked against the pattern, none kept.
    @Test func aLargeDownloadStreamsChunkByChunk() async throws {
        try await PetStore.with { store in
            let gate = TestGate()
            let chunks = 100  // 100 × 65,521 bytes: about 6.2 MiB.
            store.server.route("GET", prefix: "/api/blobs/") { _ in
                .stream(headers: ["Content-Type": "application/octet-stream"]) { writer in
                    try await writer.write(PetStore.blobChunk)
                    await gate.wait()
                    for _ in 1..<chunks { try await writer.write(PetStore.blobChunk) }
                }
            }
            let output = try await store.client.downloadBlob(path: .init(size: chunks))
            let body = try output.ok.body.binary
            #expect(body.length == .unknown)
            #expect(body.iterationBehavior == .single)
            var received = 0
            var pieces = 0
            var largest = 0
            var mismatches = 0
            for try await chunk in body {
                if pieces == 0 { await gate.open() }
                pieces += 1
                largest = max(largest, chunk.count)
                for (offset, byte) in chunk.enumerated()
                where byte != PetStore.blobChunk[(received + offset) % PetStore.blobChunk.count] {
                    mismatches += 1
                }
                received += chunk.count
            }
            #expect(received == chunks * PetStore.blobChunk.count)
            #expect(mismatches == 0)
            #expect(pieces > 1)
            #expect(largest < received / 4, "a piece of \(largest) bytes out of \(received)")
        }
    }

    /// A body of unknown length goes out chunked, read from its stream as it is sent.
    @Test func anUploadOfUnknownLengthIsStreamedChunked() async throws {
        try await PetStore.with { store in
            let piece = patternedBytes(50_000, seed: 3)
            let pieces = 40
            let (stream, continuation) = AsyncThrowingStream<HTTPBody.ByteChunk, any Error>.makeStream()
            let producer = Task {
                for _ in 0..<pieces { continuation.yield(piece[...]) }
                continuation.finish()
            }
            let output = try await store.client.upload(body: .binary(HTTPBody(stream, length: .unknown)))
            await producer.value
            let receipt = try output.ok.body.json
            #expect(receipt.bytes == pieces * piece.count)
            #expect(receipt.chunked)
            let request = try #require(store.server.lastRequest)
            #expect(request.header("Content-Length") == nil)
            #expect(request.body == Array([[UInt8]](repeating: piece, count: pieces).joined()))
        }
    }

    /// A body of known length goes out with `Content-Length`, still streamed.
    @Test func anUploadOfKnownLengthSendsItsLength() async throws {
        try await PetStore.with { store in
            let bytes = patternedBytes(300_000, seed: 4)
            let output = try await store.client.upload(body: .binary(HTTPBody(bytes)))
            let receipt = try output.ok.body.json
            #expect(receipt.bytes == bytes.count)
            #expect(!receipt.chunked)
            let request = try #require(store.server.lastRequest)
            #expect(request.header("Content-Length") == String(bytes.count))
            #expect(request.body == bytes)
        }
    }

    /// Cancelling the task that reads a response body ends the read with
    /// `FiberError.cancelled` and closes the connection while the server is still sending
    /// (it notices when a write fails: a server busy in a handler reads nothing).
    @Test func cancellingWhileTheBodyStreamsClosesItsConnection() async throws {
        try await PetStore.with { store in
            store.server.route("GET", prefix: "/api/blobs/") { _ in
                .stream(headers: ["Content-Type": "application/octet-stream"]) { writer in
                    try await writer.write(PetStore.blobChunk)
                    for _ in 0..<1_500 {  // 30 s at most; a write fails once the client has closed
                        try await writer.sleep(for: .milliseconds(20))
                        try await writer.write([0x2E])
                    }
                }
            }
            let firstPiece = TestGate()
            let client = store.client
            let reader = Task {
                let body = try await client.downloadBlob(path: .init(size: 2)).ok.body.binary
                var received = 0
                for try await chunk in body {
                    received += chunk.count
                    await firstPiece.open()
                }
                return received
            }
            await firstPiece.wait()
            reader.cancel()
            let result = await reader.result
            guard case .failure(let error) = result else {
                Issue.record("expected the read to fail, got \(result)")
                return
            }
            guard case .cancelled? = error as? FiberError else {
                Issue.record("expected FiberError.cancelled, got \(error)")
                return
            }
            try await store.server.waitForOpenConnections(0)
        }
    }
}
