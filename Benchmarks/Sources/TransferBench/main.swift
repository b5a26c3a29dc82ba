import CBenchSupport
import Fiber
import FiberRuntime
import Foundation

// Fiber's transfers in the transfer benchmark, run by `Scripts/bench-transfer`:
//
//   TransferBench download URL DEST [--ca PEM]      FiberDownloader: the body to DEST (renamed into place)
//   TransferBench upload URL FILE [--ca PEM]        Fiber.upload(_:fileAt:): FILE streamed as a PUT body
//   TransferBench multipart URL DIR [--ca PEM]      Fiber.post(_:multipart:): every file of DIR as a part, streamed
//   TransferBench discard URL - [--ca PEM]          Fiber.stream: the body read and dropped (the network side alone)
//
// Prints one line `TRANSFER_RESULT {json}`: bytes, seconds, MB/s, the process's
// resident memory before the transfer and at its peak (VmHWM), and for
// multipart the allocations a part (the malloc interposer of CBenchSupport).

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("error: \(message)\n".utf8))
    exit(2)
}

/// A field of /proc/self/status in bytes (VmRSS, VmHWM).
func status(_ field: String) -> Int {
    guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
    for line in text.split(separator: "\n") where line.hasPrefix(field + ":") {
        return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) * 1024
    }
    return 0
}

var arguments = Array(CommandLine.arguments.dropFirst())
var caFile: String?
if let index = arguments.firstIndex(of: "--ca"), index + 1 < arguments.count {
    caFile = arguments[index + 1]
    arguments.removeSubrange(index...(index + 1))
}
guard arguments.count == 3 else { fail("usage: TransferBench download|upload|multipart URL PATH [--ca PEM]") }
let (mode, url, path) = (arguments[0], arguments[1], arguments[2])

let group = EventLoopGroup(loopCount: 1)
var configuration = HTTPClient.Configuration()
if let caFile { configuration.tls.trustRoots = .file(caFile) }
configuration.requestTimeout = .seconds(600)
let transport = HTTPTransport(eventLoopGroup: group, configuration: configuration)
let fiber = Fiber(url) { $0.transport = transport }

// Warm up the client (a connection, TLS) so that the numbers are the transfer's.
_ = try? await fiber.send(fiber.request(.head, url))

let clock = ContinuousClock()
let rssBefore = status("VmRSS")
let start = clock.now
var bytes = 0
var allocationsPerPart: Double?
do {
    switch mode {
    case "download":
        let downloader = FiberDownloader(fiber)
        bytes = try await downloader.download(from: url, to: path).value.bytes
    case "discard":
        // The body read through `Fiber.stream` and dropped: the network side of a download alone.
        let response = try await fiber.stream(fiber.request(.get, url))
        for try await chunk in response.body { bytes += chunk.count }
    case "upload":
        let response = try await fiber.upload(url, fileAt: path)
        guard (200..<300).contains(response.statusCode) else { fail("upload answered \(response.statusCode)") }
        bytes = ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? 0
    case "multipart":
        let files = try FileManager.default.contentsOfDirectory(atPath: path).sorted()
        var form = MultipartForm()
        for name in files {
            form.appendFile(atPath: path + "/" + name, withName: "file", fileName: name)
            bytes += ((try? FileManager.default.attributesOfItem(atPath: path + "/" + name))?[.size] as? Int) ?? 0
        }
        fiber_alloc_counts_reset()
        fiber_alloc_counting_set(1)
        let response = try await fiber.post(url, multipart: form, method: .put)
        fiber_alloc_counting_set(0)
        guard (200..<300).contains(response.statusCode) else { fail("multipart answered \(response.statusCode)") }
        allocationsPerPart = Double(fiber_alloc_counts_get().allocations) / Double(max(1, files.count))
    default:
        fail("unknown mode \(mode)")
    }
} catch {
    fail("\(mode) failed: \(error)")
}
let elapsed = clock.now - start
let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
var result: [String: Any] = [
    "client": "fiber", "mode": mode, "bytes": bytes, "seconds": seconds,
    "mb_per_s": Double(bytes) / seconds / 1e6,
    "rss_before_bytes": rssBefore, "rss_peak_bytes": status("VmHWM"),
]
if let allocationsPerPart { result["allocations_per_part"] = allocationsPerPart }
let json = try JSONSerialization.data(withJSONObject: result, options: [.sortedKeys])
print("TRANSFER_RESULT " + String(decoding: json, as: UTF8.self))
await transport.shutdown()
try? await group.shutdown()
