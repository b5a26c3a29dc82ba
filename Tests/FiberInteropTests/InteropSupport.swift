import CZlib
import FiberRuntime
import FiberTesting
import Foundation
import Synchronization
import Testing

/// Runs `body` with a client on a fresh group of `loops` loops; then shuts the
/// client down, checks that no libuv handle is left open, and shuts the group down.
func withClient<T>(
    loops: Int = 1, sourceLocation: SourceLocation = #_sourceLocation,
    configure: (inout HTTPClient.Configuration) -> Void = { _ in },
    _ body: (HTTPClient) async throws -> T
) async throws -> T {
    let group = EventLoopGroup(loopCount: loops, name: "interop")
    var configuration = HTTPClient.Configuration()
    configure(&configuration)
    let client = HTTPClient(eventLoopGroup: group, configuration: configuration)
    do {
        let result = try await body(client)
        await client.shutdown()
        try await expectNoOpenHandles(group, sourceLocation: sourceLocation)
        try await group.shutdown()
        return result
    } catch {
        await client.shutdown()
        try? await group.shutdown()
        throw error
    }
}

/// Every handle the group's loops opened is closed (close callbacks may still be a turn or two away).
func expectNoOpenHandles(_ group: EventLoopGroup, sourceLocation: SourceLocation = #_sourceLocation) async throws {
    let leaked = try await group.leakedHandles()
    #expect(leaked.isEmpty, "open handles left per loop: \(leaked)", sourceLocation: sourceLocation)
}

/// Waits up to `timeout` for the client's statistics to satisfy `condition`; returns the last ones seen.
@discardableResult
func waitForStatistics(
    _ client: HTTPClient, timeout: Duration = .seconds(2), until condition: (ConnectionPoolStatistics) -> Bool
) async -> ConnectionPoolStatistics {
    let deadline = ContinuousClock.now + timeout
    var statistics = await client.statistics()
    while !condition(statistics), ContinuousClock.now < deadline {
        try? await Task.sleep(for: .milliseconds(5))
        statistics = await client.statistics()
    }
    return statistics
}

/// A GET (or `method`) request to `url`.
func request(_ url: String, method: String = "GET", headers: HTTPHeaders = [:], body: HTTPRequestBody? = nil) throws -> HTTPClientRequest {
    try HTTPClientRequest(url: url, method: method, headers: headers, body: body)
}

extension HTTPClientResponse {
    /// The body as UTF-8 text.
    var text: String { String(decoding: body, as: UTF8.self) }
}

// MARK: Content

/// zlib's Adler-32 of `bytes`.
func adler32(_ bytes: [UInt8]) -> UInt {
    bytes.withUnsafeBufferPointer { CZlib.adler32(CZlib.adler32(0, nil, 0), $0.baseAddress, UInt32($0.count)) }
}

/// A running Adler-32, for bodies read in chunks.
struct RunningAdler32 {
    private(set) var value: UInt = CZlib.adler32(0, nil, 0)
    private(set) var count = 0
    mutating func update(_ bytes: [UInt8]) {
        value = bytes.withUnsafeBufferPointer { CZlib.adler32(value, $0.baseAddress, UInt32($0.count)) }
        count += bytes.count
    }
}

/// Errors of the test's own zlib use.
struct ZlibError: Error, CustomStringConvertible {
    let description: String
}

/// Inflates a whole gzip stream with zlib (independently of the client's inflater).
func gunzip(_ compressed: [UInt8]) throws -> [UInt8] {
    var stream = z_stream()
    // 15 + 16: gzip only.
    guard inflateInit2_(&stream, 15 + 16, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
        throw ZlibError(description: "inflateInit2 failed")
    }
    defer { inflateEnd(&stream) }
    var output: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 256 * 1024)
    var status: Int32 = Z_OK
    try compressed.withUnsafeBufferPointer { input in
        stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
        stream.avail_in = UInt32(input.count)
        repeat {
            let produced = chunk.withUnsafeMutableBufferPointer { out in
                stream.next_out = out.baseAddress
                stream.avail_out = UInt32(out.count)
                status = inflate(&stream, Z_NO_FLUSH)
                return out.count - Int(stream.avail_out)
            }
            guard status == Z_OK || status == Z_STREAM_END else {
                throw ZlibError(description: "inflate failed with \(status) after \(output.count) bytes")
            }
            output += chunk[0..<produced]
        } while status != Z_STREAM_END
        guard stream.avail_in == 0 else { throw ZlibError(description: "\(stream.avail_in) bytes after the gzip stream") }
    }
    return output
}

/// Deterministic bytes that do not compress (a xorshift sequence).
func randomBytes(count: Int, seed: UInt64 = 0x9E37_79B9_7F4A_7C15) -> [UInt8] {
    var state = seed
    var bytes = [UInt8](repeating: 0, count: count)
    var i = 0
    while i < count {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        var word = state
        for _ in 0..<8 where i < count {
            bytes[i] = UInt8(truncatingIfNeeded: word)
            word >>= 8
            i += 1
        }
    }
    return bytes
}

/// Text that compresses well but not absurdly (numbered lines of JSON-ish records).
func compressibleText(lines: Int) -> [UInt8] {
    var text = ""
    text.reserveCapacity(lines * 64)
    for i in 0..<lines {
        text += "{\"id\": \(i), \"name\": \"item-\(i * 7919 % 10007)\", \"active\": \(i % 3 == 0)}\n"
    }
    return Array(text.utf8)
}

/// Writes `bytes` to `path`, creating its directory.
func write(_ bytes: [UInt8], to path: String) throws {
    let directory = (path as NSString).deletingLastPathComponent
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    guard FileManager.default.createFile(atPath: path, contents: Data(bytes)) else {
        throw ZlibError(description: "could not write \(path)")
    }
}

/// The contents of the file at `path`, or nil.
func contents(of path: String) -> [UInt8]? {
    FileManager.default.contents(atPath: path).map { [UInt8]($0) }
}

/// Chunks of `bytes`, `size` at a time, as an async sequence (an upload body).
func chunks(of bytes: [UInt8], size: Int, delay: Duration? = nil) -> AsyncStream<[UInt8]> {
    AsyncStream { continuation in
        let task = Task {
            var offset = 0
            while offset < bytes.count {
                if let delay { try? await Task.sleep(for: delay) }
                let end = min(offset + size, bytes.count)
                continuation.yield(Array(bytes[offset..<end]))
                offset = end
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
    }
}

/// What a progress callback reported, collected across threads.
final class ProgressLog: Sendable {
    private let entries = Locked<[(Int, Int?)]>([])

    /// A callback that records each call.
    var callback: @Sendable (Int, Int?) -> Void { { sent, total in self.entries.withLock { $0.append((sent, total)) } } }

    var last: (Int, Int?)? { entries.withLock { $0.last } }
    var count: Int { entries.withLock { $0.count } }
    /// True when the reported amounts never went down.
    var isMonotonic: Bool {
        entries.withLock { list in zip(list, list.dropFirst()).allSatisfy { $0.0 <= $1.0 } }
    }
}

/// Expects `body` to throw an `HTTPClientError` of `kind`; returns it.
@discardableResult
func expectClientError<T>(
    _ kind: HTTPClientError.Kind, sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> T
) async -> HTTPClientError? {
    do {
        let result = try await body()
        Issue.record("expected HTTPClientError \(kind), got \(result)", sourceLocation: sourceLocation)
        return nil
    } catch let error as HTTPClientError {
        #expect(error.kind == kind, "\(error)", sourceLocation: sourceLocation)
        return error
    } catch {
        Issue.record("expected HTTPClientError \(kind), got \(error)", sourceLocation: sourceLocation)
        return nil
    }
}
