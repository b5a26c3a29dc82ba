import Crypto
import FiberRuntime
import Foundation

/// Downloads files to disk through a `Fiber`'s interceptors: written beside the
/// destination and renamed into place only when whole and verified, with
/// progress, pause and resume (`Range` and `If-Range`), cancel, and a limit of
/// concurrent downloads per host (the rest wait in the order they came).
///
/// ```swift
/// let downloader = FiberDownloader(api, maxConcurrentPerHost: 4)
/// let task = await downloader.download(from: "/exports/2026.csv", to: "/data/2026.csv") { progress in
///     print(progress.fraction ?? 0)
/// }
/// let file = try await task.value
///
/// let state = await task.pause()                       // Codable: keep it anywhere
/// let again = await downloader.resume(state)            // or resume(state, from: otherURL)
/// await downloader.cancelAll()
/// ```
///
/// The body is asked for with `Accept-Encoding: identity`, so the bytes on disk
/// are the resource's own and a range means the same bytes on every try. A
/// connection that dies mid-body is resumed from where it stopped (up to
/// `maxResumeAttempts` times) when the server gave a validator. See
/// `Docs/Transfers.md` for what each server answer leads to.
public actor FiberDownloader {
    private let fiber: Fiber
    private var hosts: HostQueue
    private var waiting: [Int: CheckedContinuation<Void, any Error>] = [:]
    private var active: [Int: DownloadTask] = [:]
    private var nextID = 0
    /// How many times a download resumes after its connection failed mid-body.
    public let maxResumeAttempts: Int

    /// A downloader over `fiber` running at most `maxConcurrentPerHost` downloads a host at once.
    public init(_ fiber: Fiber, maxConcurrentPerHost: Int = 4, maxResumeAttempts: Int = 3) {
        self.fiber = fiber
        self.hosts = HostQueue(limit: maxConcurrentPerHost)
        self.maxResumeAttempts = max(0, maxResumeAttempts)
    }

    /// Starts downloading `url` (a path resolved against the client's base URL, or an
    /// absolute URL) to `destination`. A partial file and state left there by a download
    /// that was paused or killed are resumed from. `expectedSHA256` (hex) is checked
    /// before the file is put in place. `progress` hears about it at a bounded rate.
    public func download(from url: String, to destination: String, expectedSHA256: String? = nil,
                         progress: (@Sendable (TransferProgress) -> Void)? = nil) -> DownloadTask {
        let state = DownloadResumeState(url: url, destination: destination, bytesOnDisk: 0, validator: nil, totalBytes: nil)
        return start(state, findsLeftBehind: true, expectedSHA256: expectedSHA256, progress: progress)
    }

    /// Resumes a download from `state` (from `pause()`, or saved from an earlier
    /// process), from `url` when given (the same resource elsewhere). A partial file
    /// shorter than the state says resumes from its length; a longer one is cut to it;
    /// a missing one, or a state without a validator, starts again from zero.
    public func resume(_ state: DownloadResumeState, from url: String? = nil, expectedSHA256: String? = nil,
                       progress: (@Sendable (TransferProgress) -> Void)? = nil) -> DownloadTask {
        var state = state
        if let url { state.url = url }
        return start(state, findsLeftBehind: false, expectedSHA256: expectedSHA256, progress: progress)
    }

    /// Cancels every download of this downloader, running or waiting; their partial files are removed.
    public func cancelAll() {
        for task in active.values { task.cancel() }
    }

    /// Downloads running or waiting.
    public var count: Int { active.count }

    private func start(_ state: DownloadResumeState, findsLeftBehind: Bool, expectedSHA256: String?,
                       progress: (@Sendable (TransferProgress) -> Void)?) -> DownloadTask {
        let handle = DownloadTask(state: state)
        let id = nextID
        nextID += 1
        active[id] = handle
        let job = DownloadJob(fiber: fiber, handle: handle, findsLeftBehind: findsLeftBehind,
                              expectedSHA256: expectedSHA256?.lowercased(),
                              reporter: progress.map { ProgressReporter(interval: .milliseconds(100), report: $0) },
                              maxResumeAttempts: maxResumeAttempts)
        let host = job.host(of: state.url)
        // On the loop that carries the request: the body's chunks, the queue and the writes'
        // completions meet on one thread, with no hop between them.
        handle.start(Task(executorPreference: job.loop) {
            defer { handle.stopped() }
            do {
                try await self.enter(id, host: host)
            } catch {
                await self.forget(id)
                throw FiberError.cancelled
            }
            do {
                let file = try await job.run()
                await self.leave(id, host: host)
                return file
            } catch {
                await self.leave(id, host: host)
                throw error
            }
        })
        return handle
    }

    /// Waits for a slot of `host`, in order; throws when cancelled while waiting.
    private func enter(_ id: Int, host: String) async throws {
        if hosts.arrive(id, host: host) { return }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                if Task.isCancelled, hosts.leave(id, host: host) {
                    continuation.resume(throwing: CancellationError())
                } else {
                    waiting[id] = continuation
                }
            }
        } onCancel: {
            Task { await self.cancelWaiting(id, host: host) }
        }
    }

    private func cancelWaiting(_ id: Int, host: String) {
        guard hosts.leave(id, host: host), let continuation = waiting.removeValue(forKey: id) else { return }
        continuation.resume(throwing: CancellationError())
    }

    private func leave(_ id: Int, host: String) {
        active[id] = nil
        if let next = hosts.finish(host: host), let continuation = waiting.removeValue(forKey: next) {
            continuation.resume()
        }
    }

    private func forget(_ id: Int) {
        active[id] = nil
    }
}

/// One download's work, run in its task: the loop of requests (a resume after a
/// failure, a restart from zero), writing, checking and putting the file in place.
struct DownloadJob: Sendable {
    /// The most bytes of a body read ahead of the disk. Small on purpose: a queue of
    /// megabytes drained at once hands its memory back to the system, and the next chunks
    /// fault it in again page by page (tens of thousands of faults a GiB).
    static let queuedBytes = 256 * 1024

    let fiber: Fiber
    let handle: DownloadTask
    /// A new download: a partial file and state left at its destination (a pause, a crash) are resumed.
    let findsLeftBehind: Bool
    let expectedSHA256: String?
    let reporter: ProgressReporter?
    let maxResumeAttempts: Int

    /// The host a URL or path goes to, for the per-host limit.
    func host(of url: String) -> String {
        let absolute = fiber.request(.get, url).location
        return absolute.target.map { "\($0.host):\($0.port)" } ?? absolute.text
    }

    /// The loop the transport sends on (its file calls run there too).
    var loop: EventLoop { (fiber.transport.executorPreference() as? EventLoop) ?? EventLoopGroup.shared.next() }

    func run() async throws -> DownloadedFile {
        let loop = self.loop
        var state = handle.resumeState
        let url = fiber.request(.get, state.url).location.text
        let partial = state.partialPath
        let failure = { (kind: TransferFailure.Kind, detail: String, path: String, error: (any Error)?) in
            FiberError.networkError(underlying: TransferFailure(kind, detail, path: path, url: url, underlying: error))
        }
        // Offline by the client's monitor: refused before the disk is touched; a partial file stays.
        if let offline = fiber.offlineFailure(for: fiber.request(.get, state.url)) { throw offline }
        do {
            state = try await reconcile(state, on: loop)
            handle.update { $0 = state }
            var resumes = 0
            var restarted = false
            while true {
                let resumeAt = state.bytesOnDisk > 0 ? state.validator.map { _ in state.bytesOnDisk } : nil
                var request = fiber.request(.get, state.url).header("Accept-Encoding", "identity")
                if let resumeAt, let validator = state.validator {
                    for (name, value) in DownloadRules.resumeFields(offset: resumeAt, validator: validator) {
                        request = request.header(name, value)
                    }
                }
                let response = try await fiber.stream(request)
                switch DownloadRules.decide(status: response.statusCode, headers: response.headers, resumeOffset: resumeAt) {
                case .failStatus:
                    let collected = try await response.collect(maxBytes: 64 * 1024)
                    throw FiberError.httpError(statusCode: response.statusCode, data: collected.data, response: collected)
                case .malformed(let why):
                    throw failure(.malformedResponse, why, partial, nil)
                case .restart:
                    guard !restarted else { throw failure(.malformedResponse, "the server refused to resume twice", partial, nil) }
                    restarted = true
                    state.bytesOnDisk = 0
                    state.validator = nil
                    continue
                case .complete(let total):
                    state.totalBytes = total
                    return try await finish(state, written: nil, resumedFrom: total, on: loop, failure: failure)
                case .write(let offset, let truncate, let total):
                    if offset == 0 { state.validator = nil }
                    state.validator = DownloadResumeState.validator(in: response.headers) ?? state.validator
                    state.totalBytes = total
                    state.bytesOnDisk = offset
                    handle.update { $0 = state }
                    do {
                        let hasher = try await write(response.body, from: offset, truncate: truncate, state: &state, on: loop,
                                                     failure: failure)
                        return try await finish(state, written: hasher, resumedFrom: offset, on: loop, failure: failure)
                    } catch let error as FiberError where Self.mayResume(after: error) && state.validator != nil
                        && resumes < maxResumeAttempts && !Task.isCancelled {
                        resumes += 1
                        continue
                    }
                }
            }
        } catch {
            let cancelled = Task.isCancelled || error is CancellationError
            if cancelled, handle.isPausing {
                handle.update { $0 = state }
                throw FiberError.cancelled
            }
            // A resume refused as offline leaves the partial file and its state for a later one.
            if case .networkError(let underlying)? = error as? FiberError, underlying is OfflineError {
                handle.update { $0 = state }
                throw error
            }
            // Nothing stays behind a download that failed or was cancelled.
            try? await LoopFile.remove(partial, on: loop)
            try? await LoopFile.remove(state.statePath, on: loop)
            if cancelled { throw FiberError.cancelled }
            throw error
        }
    }

    /// A network failure or a timeout mid-body may be resumed; anything else (the
    /// transfer's own failures among them) is final.
    private static func mayResume(after error: FiberError) -> Bool {
        switch error {
        case .networkError(let underlying): !(underlying is TransferFailure)
        case .timeout: true
        default: false
        }
    }

    /// `state` made true to the disk: the partial file's real length (a state found
    /// beside the destination trusts the file; a given state is cut to what both say).
    private func reconcile(_ given: DownloadResumeState, on loop: EventLoop) async throws -> DownloadResumeState {
        var state = given
        if findsLeftBehind {
            // A state left beside the destination by a paused or killed download is resumed.
            if let saved = try? Data(contentsOf: URL(fileURLWithPath: state.statePath)),
               let found = try? JSONDecoder().decode(DownloadResumeState.self, from: saved),
               found.destination == state.destination {
                state.validator = found.validator
                state.totalBytes = found.totalBytes
                state.bytesOnDisk = Int.max
            } else {
                state.bytesOnDisk = 0
            }
        }
        let onDisk = try? await LoopFile.size(of: state.partialPath, on: loop)
        guard let onDisk, state.validator != nil else {
            state.bytesOnDisk = 0
            state.validator = nil
            return state
        }
        state.bytesOnDisk = min(onDisk, state.bytesOnDisk)
        return state
    }

    /// Writes `body` into the partial file from `offset`, hashing when a checksum is
    /// expected; returns the hasher over the whole file.
    private func write(_ body: FiberBodyStream, from offset: Int, truncate: Bool, state: inout DownloadResumeState,
                       on loop: EventLoop,
                       failure: (TransferFailure.Kind, String, String, (any Error)?) -> FiberError) async throws -> SHA256? {
        let partial = state.partialPath
        let file: LoopFile
        do {
            file = try await LoopFile.open(partial, .writing(truncating: truncate), on: loop)
            if file.size > offset { try await file.truncate(to: offset, on: loop) }
        } catch {
            throw failure(.destination, "cannot open the partial file", partial, error)
        }
        defer { Task { await file.close(on: loop) } }
        if state.validator != nil { try? saveState(state) } else { try? await LoopFile.remove(state.statePath, on: loop) }
        var hasher = expectedSHA256 == nil ? nil : SHA256()
        if offset > 0, var prefix = hasher {
            // The bytes already on disk are part of the checksum.
            try await Self.hash(partial, upTo: offset, into: &prefix, on: loop)
            hasher = prefix
        }
        reporter?.start(at: offset)
        // The network and the disk each at their pace: a task reads the body into a
        // bounded queue while this one writes, in one trip to libuv's pool, everything that
        // arrived during the last write. Cancelled (a pause), the writer stops at once: what
        // counts as on disk is what it wrote.
        let queue = BackpressuredBuffer<[UInt8], any Error>(lowWatermark: Self.queuedBytes / 4, highWatermark: Self.queuedBytes,
                                                         whenCancelled: CancellationError(), whenReadTwice: nil)
        var position = offset
        defer { state.bytesOnDisk = position }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                do {
                    var chunks = body.byteChunks()
                    while let chunk = try await chunks.next() {
                        queue.push(chunk, size: chunk.count)
                        await queue.waitForDemand()
                    }
                    queue.finish()
                } catch {
                    queue.finish(error)
                }
            }
            while let first = try await queue.next() {
                let pieces = [first] + queue.takeQueued()
                do {
                    try await file.write(contentsOf: pieces, at: position, on: loop)
                } catch {
                    throw failure(.destination, "cannot write the partial file", partial, error)
                }
                for piece in pieces {
                    hasher?.update(data: piece)
                    position += piece.count
                }
                let now = position
                handle.update { $0.bytesOnDisk = now }
                reporter?.record(now, of: state.totalBytes)
            }
        }
        // The connection frames the body; this is the file's own check that nothing is missing.
        if let total = state.totalBytes, position != total {
            throw failure(.malformedResponse, "the body ended at byte \(position) of \(total)", partial, nil)
        }
        reporter?.finish()
        do {
            try await file.sync(on: loop)
        } catch {
            throw failure(.destination, "cannot flush the partial file", partial, error)
        }
        return hasher
    }

    /// Checks the whole file and renames it into place.
    private func finish(_ state: DownloadResumeState, written hasher: SHA256?, resumedFrom: Int, on loop: EventLoop,
                        failure: (TransferFailure.Kind, String, String, (any Error)?) -> FiberError) async throws
        -> DownloadedFile {
        let partial = state.partialPath
        var digest: String?
        if let expectedSHA256 {
            var whole: SHA256
            if let hasher {
                whole = hasher
            } else {
                // Whole on disk already (a 416 at its end): hash what is there.
                whole = SHA256()
                try await Self.hash(partial, upTo: .max, into: &whole, on: loop)
            }
            let hex = whole.finalize().lowercaseHex
            guard hex == expectedSHA256 else {
                throw failure(.checksumMismatch, "SHA-256 \(hex), expected \(expectedSHA256)", state.destination, nil)
            }
            digest = hex
        }
        let size = state.bytesOnDisk
        do {
            try await LoopFile.rename(partial, to: state.destination, on: loop)
        } catch {
            throw failure(.destination, "cannot move the finished file into place", state.destination, error)
        }
        try? await LoopFile.remove(state.statePath, on: loop)
        handle.update { $0.bytesOnDisk = size }
        return DownloadedFile(path: state.destination, bytes: size, resumedFrom: resumedFrom, sha256: digest)
    }

    /// Adds the first `length` bytes of the file at `path` (all of it, if shorter) to `hasher`.
    private static func hash(_ path: String, upTo length: Int, into hasher: inout SHA256, on loop: EventLoop) async throws {
        let file = try await LoopFile.open(path, on: loop)
        var read = 0
        while read < length {
            let piece = try await file.read(at: read, count: min(1 << 20, length - read), on: loop)
            if piece.isEmpty { break }
            hasher.update(data: piece)
            read += piece.count
        }
        await file.close(on: loop)
    }

    private func saveState(_ state: DownloadResumeState) throws {
        var saved = state
        saved.bytesOnDisk = 0  // the partial file's length says how far it got
        try JSONEncoder().encode(saved).write(to: URL(fileURLWithPath: state.statePath), options: .atomic)
    }
}
