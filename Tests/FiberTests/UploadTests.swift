import Crypto
import Fiber
import FiberRuntime
import FiberTesting
import Foundation
import Testing

/// Request bodies read as they are sent, through `Fiber` over real loopback sockets.
@Suite("Streamed uploads through Fiber", .timeLimit(.minutes(1)))
struct UploadTests {
    /// The `HTTPClientError` inside a `.networkError`, if that is what was thrown.
    static func clientError(_ error: FiberError) -> HTTPClientError? {
        if case .networkError(let underlying) = error { underlying as? HTTPClientError } else { nil }
    }

    @Test func aFileGoesWholeWithItsLengthAndProgress() async throws {
        let payload = patternedBytes(2 * 1024 * 1024 + 5, seed: 1)
        try await withTemporaryFile(payload) { path in
            try await withLiveServer { server, transport in
                server.route("PUT", "/files/a") { _ in .status(201) }
                let fiber = Fiber(server.baseURL) { $0.transport = transport }
                let progress = ProgressRecorder()
                let response = try await fiber.upload("/files/a", fileAt: path, progress: progress.record)
                #expect(response.statusCode == 201)
                let received = try #require(server.lastRequest)
                #expect(received.body.count == payload.count && received.body.elementsEqual(payload))
                #expect(received.header("Content-Length") == "\(payload.count)")
                #expect(received.header("Content-Type") == "application/octet-stream")
                let reports = progress.reports
                #expect(reports.last == TransferProgress(bytes: payload.count, total: payload.count,
                                                         bytesPerSecond: reports.last?.bytesPerSecond ?? 0))
                #expect(reports.map(\.bytes) == reports.map(\.bytes).sorted())
                // A bounded rate: the first, then one per 100 ms at most, and the last.
                #expect(reports.count < 32, "\(reports.count) reports for 33 pieces")
            }
        }
    }

    /// Bytes in memory with progress: the seeds' `uploadRawData`.
    @Test func dataGoesWithItsTypeAndProgress() async throws {
        try await withLiveServer { server, transport in
            server.route("POST", "/raw") { _ in .status(201) }
            let fiber = Fiber(server.baseURL) { $0.transport = transport }
            let payload = Data(patternedBytes(300_000, seed: 15))
            let progress = ProgressRecorder()
            let response = try await fiber.upload("/raw", data: payload, contentType: "application/pdf",
                                                  headers: ["Authorization": "Bearer t"], progress: progress.record)
            #expect(response.statusCode == 201)
            #expect(server.lastRequest?.body.elementsEqual(payload) == true)
            #expect(server.lastRequest?.header("Content-Type") == "application/pdf")
            #expect(server.lastRequest?.header("Authorization") == "Bearer t")
            #expect(progress.reports.last?.bytes == payload.count && progress.reports.last?.fraction == 1)
        }
    }

    @Test func aMissingFileFailsNamingItAndSendsNothing() async throws {
        try await withLiveServer { server, transport in
            server.route("PUT", "/files/a") { _ in .status(201) }
            let fiber = Fiber(server.baseURL) { $0.transport = transport }
            let path = "/nonexistent-\(UUID().uuidString)/file.bin"
            await expectFiberError({ error in
                guard let inner = Self.clientError(error) else { return false }
                return inner.kind == .requestBody && "\(inner)".contains(path)
            }) {
                try await fiber.upload("/files/a", fileAt: path)
            }
            #expect(server.requestCount == 0)
        }
    }

    /// The file is cut short (or grows) after the first piece went out: the request
    /// fails naming the file, and no byte past the declared length is written.
    @Test(arguments: [true, false])
    func aFileThatChangesSizeWhileSentFails(shrinks: Bool) async throws {
        let payload = patternedBytes(1024 * 1024, seed: 2)
        try await withTemporaryFile(payload) { path in
            try await withLiveServer { server, transport in
                server.route("PUT", "/files/a") { _ in .status(201) }
                let fiber = Fiber(server.baseURL) { $0.transport = transport }
                let changed = Locked(false)
                let request = fiber.request(.put, "/files/a").body(fileAt: path).onUploadProgress(every: .zero) { _ in
                    guard !changed.withLock({ let was = $0; $0 = true; return was }) else { return }
                    let handle = FileHandle(forWritingAtPath: path)!
                    if shrinks {
                        try? handle.truncate(atOffset: 100_000)
                    } else {
                        _ = try? handle.seekToEnd()
                        handle.write(Data([1, 2, 3]))
                    }
                    try? handle.close()
                }
                await expectFiberError({ error in
                    guard let inner = Self.clientError(error) else { return false }
                    return inner.kind == .requestBody && "\(inner)".contains("changed size") && "\(inner)".contains(path)
                }) {
                    try await fiber.send(request)
                }
                #expect(server.recordedRequests().allSatisfy { $0.body.count != payload.count + 3 })
            }
        }
    }

    /// A stream read once is not retried: the 503 is the answer and the server saw one request.
    /// A stream made by a function is retried with its whole body.
    @Test func aOneShotStreamIsNotRetriedAReplayableOneIs() async throws {
        try await withLiveServer { server, transport in
            let attempts = Counter()
            server.route("PUT", "/flaky") { _ in attempts.increment() == 1 ? .status(503) : .status(200) }
            let fiber = Fiber(server.baseURL) {
                $0.transport = transport
                $0.interceptors = [RetryInterceptor(maxRetries: 2, baseDelay: 0.01)]
            }
            let payload = patternedBytes(100_000, seed: 4)
            let once = try await fiber.send(fiber.request(.put, "/flaky").body(.stream(once: chunks(of: payload, size: 9_000))))
            #expect(once.statusCode == 503)
            #expect(attempts.count == 1)

            server.removeAllRoutes()
            let again = Counter()
            server.route("PUT", "/flaky") { _ in again.increment() == 1 ? .status(503) : .status(200) }
            let replayed = try await fiber.send(fiber.request(.put, "/flaky")
                .body(.stream(length: payload.count) { chunks(of: payload, size: 9_000) }))
            #expect(replayed.statusCode == 200)
            #expect(again.count == 2)
            #expect(server.recordedRequests().suffix(2).allSatisfy { $0.body.elementsEqual(payload) })
        }
    }

    /// A 307 is followed with a replayable body, which arrives whole at the new place;
    /// with a body read once the 307 is the response.
    @Test func a307ResendsOnlyAReplayableBody() async throws {
        try await withLiveServer { server, transport in
            server.route("POST", "/old", respond: .redirect(to: "/new", status: 307))
            server.route("POST", "/new") { _ in .status(201) }
            let fiber = Fiber(server.baseURL) { $0.transport = transport }
            let payload = patternedBytes(50_000, seed: 6)
            try await withTemporaryFile(payload) { path in
                let followed = try await fiber.send(fiber.request(.post, "/old").body(fileAt: path))
                #expect(followed.statusCode == 201)
                #expect(server.lastRequest?.path == "/new")
                #expect(server.lastRequest?.body.elementsEqual(payload) == true)
            }
            let kept = try await fiber.send(fiber.request(.post, "/old").body(.stream(once: chunks(of: payload, size: 4_096))))
            #expect(kept.statusCode == 307)
            #expect(server.lastRequest?.path == "/old")
        }
    }

    @Test func aStreamOfUnknownLengthIsChunked() async throws {
        try await withLiveServer { server, transport in
            server.route("POST", "/in") { _ in .status(204) }
            let fiber = Fiber(server.baseURL) { $0.transport = transport }
            let payload = patternedBytes(300_000, seed: 8)
            let response = try await fiber.send(fiber.request(.post, "/in").body(.stream { chunks(of: payload, size: 10_000) }))
            #expect(response.statusCode == 204)
            #expect(server.lastRequest?.header("Transfer-Encoding") == "chunked")
            #expect(server.lastRequest?.body.elementsEqual(payload) == true)
        }
    }

    /// The encryption interceptor reads a streamed body into memory, within its bound.
    @Test func encryptionReadsAStreamedBodyWithinItsBound() async throws {
        try await withLiveServer { server, transport in
            server.route("POST", "/secret") { _ in .status(204) }
            let key = SymmetricKey(size: .bits256)
            let provider = AESGCMEncryptionProvider(key: key)
            let payload = patternedBytes(40_000, seed: 10)
            try await withTemporaryFile(payload) { path in
                let fiber = Fiber(server.baseURL) {
                    $0.transport = transport
                    $0.interceptors = [EncryptionInterceptor(provider: provider, decryptResponse: false, maxStreamedBodySize: 50_000)]
                }
                let response = try await fiber.send(fiber.request(.post, "/secret").body(fileAt: path))
                #expect(response.statusCode == 204)
                let sent = try #require(server.lastRequest?.body)
                #expect(try provider.decrypt(Data(sent)) == Data(payload))

                let strict = Fiber(server.baseURL) {
                    $0.transport = transport
                    $0.interceptors = [EncryptionInterceptor(provider: provider, decryptResponse: false, maxStreamedBodySize: 10_000)]
                }
                let before = server.requestCount
                await expectFiberError({ error in
                    if case .interceptor("encryption", let inner) = error { (inner as? HTTPClientError)?.kind == .requestBody } else { false }
                }) {
                    try await strict.send(strict.request(.post, "/secret").body(fileAt: path))
                }
                #expect(server.requestCount == before)
            }
        }
    }

    /// A file among the parts of a form that is missing fails the request, naming it, before anything is sent.
    @Test func aMissingFilePartFailsNamingIt() async throws {
        try await withLiveServer { server, transport in
            server.route("POST", "/form") { _ in .status(200) }
            let fiber = Fiber(server.baseURL) { $0.transport = transport }
            var form = MultipartForm()
            form.append("x", withName: "x")
            let path = "/nonexistent-\(UUID().uuidString)/part.bin"
            form.appendFile(atPath: path, withName: "f")
            await expectFiberError({ error in
                guard let inner = Self.clientError(error) else { return false }
                return inner.kind == .requestBody && "\(inner)".contains(path)
            }) {
                try await fiber.post("/form", multipart: form)
            }
            #expect(server.requestCount == 0)
        }
    }

    /// An upload cancelled half-way leaves no descriptor open on its file (the file
    /// alone and as a part of a form).
    @Test(arguments: [false, true])
    func aCancelledUploadClosesItsFile(asPart: Bool) async throws {
        let payload = patternedBytes(8 * 1024 * 1024, seed: 11)
        try await withTemporaryFile(payload) { path in
            try await withLiveServer { server, transport in
                server.route("POST", "/slow") { _ in .status(200) }
                let fiber = Fiber(server.baseURL) { $0.transport = transport }
                var form = MultipartForm()
                form.appendFile(atPath: path, withName: "f")
                let base = fiber.request(.post, "/slow")
                let request = asPart ? base.multipartBody(form) : base.body(fileAt: path)
                let started = Locked(false)
                let task = Task {
                    try await fiber.send(request.onUploadProgress(every: .zero) { _ in started.withLock { $0 = true } })
                }
                try await waitUntil("the upload started") { started.withLock { $0 } }
                task.cancel()
                _ = await task.result
                try await waitUntil("the file closed", timeout: .seconds(5)) { !Self.descriptorIsOpen(on: path) }
            }
        }
    }

    /// Whether a descriptor of this process points at `path`.
    static func descriptorIsOpen(on path: String) -> Bool {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return entries.contains { (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\($0)")) == path }
    }
}
