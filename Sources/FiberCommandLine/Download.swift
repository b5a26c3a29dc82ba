import Fiber
import FiberRuntime
import Foundation

/// `--output FILE` (and `--continue`): downloads with the library's
/// `FiberDownloader`, a progress bar on standard error. The file is written
/// beside the destination and renamed into place when whole; a download that
/// was interrupted (its `.fiberpart` and state left beside the file) resumes on
/// its own. `--continue` also adopts a file already at the destination (from
/// another tool, or cut short) as a partial one, when a `HEAD` gives the
/// validator that makes resuming safe.
struct Download {
    let out: CommandOutput

    /// Downloads; returns the final status (200 once the file is whole).
    ///
    /// - Throws: `FiberError` (network, timeout, a `TransferFailure` for the file).
    func run(configuration: HTTPClient.Configuration, url: String, headers: HTTPHeaders, to path: String,
             continuing: Bool) async throws -> Int {
        let transport = HTTPTransport(eventLoopGroup: .shared, configuration: configuration)
        do {
            let status = try await run(transport: transport, url: url, headers: headers, to: path, continuing: continuing)
            await transport.shutdown()
            return status
        } catch {
            await transport.shutdown()
            throw error
        }
    }

    private func run(transport: HTTPTransport, url: String, headers: HTTPHeaders, to path: String,
                     continuing: Bool) async throws -> Int {
        let fiber = Fiber(url) {
            $0.transport = transport
            $0.defaultHeaders = headers
        }
        let downloader = FiberDownloader(fiber)
        let bar = ProgressBar()
        let out = self.out
        // The speed counts this run's bytes only: a resumed download starts from what is on disk.
        // A line shorter than the last is padded, so that none of the last is left showing.
        let shown = Locked<(bytes: Int, at: ContinuousClock.Instant, width: Int)?>(nil)
        let progress: @Sendable (TransferProgress) -> Void = { progress in
            guard out.isTerminal else { return }
            let now = ContinuousClock.now
            let line = shown.withLock { state in
                let start = state ?? (progress.bytes, now, 0)
                let seconds = (now - start.at).seconds
                let rate = seconds > 0.2 ? Double(progress.bytes - start.bytes) / seconds : nil
                let line = bar.line(done: progress.bytes, total: progress.total, bytesPerSecond: rate)
                state = (start.bytes, start.at, max(start.width, line.count))
                return line.padding(toLength: max(start.width, line.count), withPad: " ", startingAt: 0)
            }
            out.error("\r" + line)
        }
        let task: DownloadTask
        if continuing, let adopted = try await adopt(path, url: url, fiber: fiber) {
            task = await downloader.resume(adopted, progress: progress)
        } else {
            task = await downloader.download(from: url, to: path, progress: progress)
        }
        do {
            let file = try await task.value
            if out.isTerminal { out.error("\n") }
            let resumed = file.resumedFrom > 0 ? " (resumed at \(ProgressBar.size(file.resumedFrom)))" : ""
            out.error("saved \(ProgressBar.size(file.bytes)) to \(path)\(resumed)\n")
            return 200
        } catch FiberError.httpError(let status, let data, _) {
            out.error("HTTP \(status): \(String(decoding: data.prefix(64 * 1024), as: UTF8.self))\n")
            return status
        }
    }

    /// A file already at `path`, with no partial download beside it, as the state
    /// of a partial download: when a `HEAD` gives a validator. Nil otherwise (the
    /// download then starts from zero).
    private func adopt(_ path: String, url: String, fiber: Fiber) async throws -> DownloadResumeState? {
        var state = DownloadResumeState(url: url, destination: path, bytesOnDisk: 0, validator: nil, totalBytes: nil)
        let files = FileManager.default
        guard !files.fileExists(atPath: state.statePath),
              let size = (try? files.attributesOfItem(atPath: path))?[.size] as? Int, size > 0 else { return nil }
        let head = try await fiber.send(fiber.request(.head, url))
        guard let validator = DownloadResumeState.validator(in: head.headers) else {
            out.error("cannot resume \(path): the server gives no ETag or Last-Modified; downloading it whole\n")
            return nil
        }
        try? files.removeItem(atPath: state.partialPath)
        try files.moveItem(atPath: path, toPath: state.partialPath)
        state.bytesOnDisk = size
        state.validator = validator
        return state
    }
}
