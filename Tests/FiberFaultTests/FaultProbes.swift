import Fiber
import FiberRuntime
import FiberTesting
import Foundation
import Testing

/// The exchanges each row runs over its faulty link, each checking that what
/// arrives is intact and that the server saw each request exactly once.
extension FaultRig {
    /// GETs `/files/<name>` from nginx whole; expects a 200 and the file's exact bytes.
    func download(_ name: String, log: RowLog, options: HTTPClient.RequestOptions = .init(),
                  sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let expected = FaultRig.files[name]!
        let response = try await log.timed("GET \(expected.count / 1024) KiB from nginx") {
            try await client.execute(HTTPClientRequest(url: nginxURL("/files/" + name)), options: options)
        }
        #expect(response.status == 200, sourceLocation: sourceLocation)
        #expect(response.body.count == expected.count && response.body == expected,
                "\(response.body.count) of \(expected.count) bytes, intact: \(response.body == expected)", sourceLocation: sourceLocation)
    }

    /// Streams `path` from nginx, calling `onProgress` with the bytes received so far after each
    /// chunk; returns the bytes received and whether they match `expected` so far.
    func stream(_ path: String, expected: [UInt8], options: HTTPClient.RequestOptions = .init(),
                onProgress: (Int) async throws -> Void = { _ in }) async throws -> (count: Int, intact: Bool) {
        let response = try await client.stream(HTTPClientRequest(url: nginxURL(path)), options: options)
        var count = 0
        var intact = response.status == 200
        for try await chunk in response.body {
            intact = intact && count + chunk.count <= expected.count && expected[count..<(count + chunk.count)].elementsEqual(chunk)
            count += chunk.count
            try await onProgress(count)
        }
        return (count, intact && count == expected.count)
    }

    /// POSTs `size` bytes to the test server; expects its size and checksum to come
    /// back, and exactly one more request at the server (a POST is never retried).
    func upload(_ size: Int, log: RowLog, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let body = patternedBytes(size, seed: 9)
        let before = requestsReceived("/upload")
        let response = try await log.timed("POST \(size / 1024) KiB to the test server") {
            try await client.execute(HTTPClientRequest(url: serverURL("/upload"), method: "POST", body: .bytes(body)))
        }
        #expect(String(decoding: response.body, as: UTF8.self) == "\(size):\(fnv1a(body))", sourceLocation: sourceLocation)
        #expect(requestsReceived("/upload") == before + 1, "the POST reached the server once", sourceLocation: sourceLocation)
    }

    /// The same through the `Fiber` API (its default interceptors, its own transport on the
    /// client's loop): 2 MiB from nginx intact, 256 KiB posted once; then
    /// `Fiber.connectionStatistics()` shows its pool at rest.
    func fiberExchanges(log: RowLog, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let transport = HTTPTransport(eventLoopGroup: clientGroup)
        do {
            let nginxFiber = Fiber(nginxURL("")) { $0.transport = transport }
            let download = try await log.timed("Fiber GET 2048 KiB from nginx") { try await nginxFiber.get("/files/2m.bin") }
            #expect(download.statusCode == 200 && download.data.elementsEqual(FaultRig.files["2m.bin"]!), sourceLocation: sourceLocation)
            let serverFiber = Fiber(serverURL("")) { $0.transport = transport }
            let body = patternedBytes(256 * 1024, seed: 5)
            let before = requestsReceived("/upload")
            let upload = try await log.timed("Fiber POST 256 KiB") { try await serverFiber.post("/upload", body: Data(body)) }
            #expect(String(decoding: upload.data, as: UTF8.self) == "\(body.count):\(fnv1a(body))", sourceLocation: sourceLocation)
            #expect(requestsReceived("/upload") == before + 1, "the POST reached the server once", sourceLocation: sourceLocation)
            let statistics = await serverFiber.connectionStatistics()
            #expect(statistics?.leased == 0 && statistics?.waiting == 0 && statistics?.connecting == 0,
                    "Fiber's pool at rest: \(String(describing: statistics))", sourceLocation: sourceLocation)
        } catch {
            await transport.shutdown()
            throw error
        }
        await transport.shutdown()
    }

    /// GETs `/small` from the test server with `options`.
    func small(_ options: HTTPClient.RequestOptions = .init()) async throws -> HTTPClientResponse {
        try await client.execute(HTTPClientRequest(url: serverURL("/small")), options: options)
    }
}

/// Runs `operation`, failing with `Bounded.exceeded` if it is not done within `limit`
/// (it is cancelled then): a row that would hang fails on its own instead.
func bounded<T: Sendable>(_ limit: Duration, _ what: String, _ operation: @escaping @Sendable () async throws -> T) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await operation() }
        group.addTask {
            try await Task.sleep(for: limit)
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next(), let value = first else { throw Bounded(what: what, limit: limit) }
        return value
    }
}

/// An operation outlived its bound.
struct Bounded: Error, CustomStringConvertible {
    let what: String
    let limit: Duration
    var description: String { "\(what) was not done within \(limit)" }
}

/// Expects `body` to throw an `HTTPClientError` of `kind`; returns it.
@discardableResult
func expectError<T>(_ kind: HTTPClientError.Kind, sourceLocation: SourceLocation = #_sourceLocation,
                    _ body: () async throws -> T) async -> HTTPClientError? {
    do {
        let value = try await body()
        Issue.record("expected \(kind), got \(value)", sourceLocation: sourceLocation)
    } catch let error as HTTPClientError {
        #expect(error.kind == kind, "\(error)", sourceLocation: sourceLocation)
        return error
    } catch {
        Issue.record("expected HTTPClientError \(kind), got \(error)", sourceLocation: sourceLocation)
    }
    return nil
}
