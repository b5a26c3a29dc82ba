import FiberRuntime
import Foundation

/// `--output FILE` (and `--continue`): streams the body into the file with a
/// progress bar on standard error; a 206 answer to a Range request appends,
/// a 200 rewrites the file from the start, a 416 means it is complete.
struct Download {
    let out: CommandOutput

    /// Downloads; returns the status.
    ///
    /// - Throws: `HTTPClientError`; `CommandLineError` when the file cannot be written.
    func run(client: HTTPClient, request: HTTPClientRequest, to path: String, resumingFrom offset: Int, verbose: Bool) async throws -> Int {
        let response = try await client.stream(request)
        if response.status == 416, offset > 0 {
            out.error("\(path) is already complete (\(ProgressBar.size(offset)))\n")
            return 200
        }
        guard (200..<300).contains(response.status) else {
            var body: [UInt8] = []
            for try await chunk in response.body where body.count < 64 * 1024 { body += chunk }
            out.error("HTTP \(response.status) \(response.reason): \(String(decoding: body, as: UTF8.self))\n")
            return response.status
        }
        let appending = response.status == 206 && offset > 0
        if !appending, !FileManager.default.createFile(atPath: path, contents: nil) {
            throw CommandLineError("cannot create \(path)")
        }
        guard let file = FileHandle(forWritingAtPath: path) else { throw CommandLineError("cannot write \(path)") }
        defer { try? file.close() }
        var done = appending ? offset : 0
        if appending { _ = try file.seekToEnd() }
        let length = response.headers["Content-Length"].flatMap(Int.init)
        let total = length.map { $0 + done }
        let bar = ProgressBar()
        var lastDrawn = ContinuousClock.now - .seconds(1)
        for try await chunk in response.body {
            try file.write(contentsOf: chunk)
            done += chunk.count
            if out.isTerminal, ContinuousClock.now - lastDrawn > .milliseconds(100) {
                out.error("\r" + bar.line(done: done, total: total))
                lastDrawn = .now
            }
        }
        if out.isTerminal { out.error("\r" + bar.line(done: done, total: total) + "\n") }
        out.error("saved \(ProgressBar.size(done)) to \(path)\(appending ? " (resumed at \(ProgressBar.size(offset)))" : "")\n")
        if verbose { out.error(RequestRunner.describe(response.timing) + "\n") }
        return response.status
    }
}
