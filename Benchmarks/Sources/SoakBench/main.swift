// The soak and the allocation regression check, driven by `Scripts/soak` and
// `Scripts/check-allocations`:
//
//   SoakBench soak --url URL [--requests N] [--concurrency C] [--sample-every N] [--ca PEM]
//                  [--time-limit S] [--expect-bytes N]
//   SoakBench allocations --url URL [--websocket WS_URL] [--operations N]
//
// Everything talks to the URLs given (127.0.0.1 in the scripts); every run is bounded
// in count and, by a watchdog, in time.
import HTTPBenchKit
#if canImport(Glibc)
import Glibc
#endif

var arguments = CommandLine.arguments.dropFirst()
let usage = """
usage: SoakBench soak --url URL [--requests N] [--concurrency C] [--sample-every N] [--ca PEM] [--time-limit S] [--expect-bytes N]
       SoakBench allocations --url URL [--websocket WS_URL] [--operations N]
"""
func fail(_ message: String) -> Never {
    print("error: \(message)\n\(usage)")
    exit(2)
}
@MainActor func value(_ name: String) -> String {
    guard let v = arguments.popFirst() else { fail("\(name) needs a value") }
    return v
}
@MainActor func count(_ name: String) -> Int {
    guard let n = Int(value(name)), n >= 1 else { fail("\(name) takes a positive count") }
    return n
}

switch arguments.popFirst() {
case "soak":
    var soak = Soak()
    while let option = arguments.popFirst() {
        switch option {
        case "--url": soak.url = value(option)
        case "--requests": soak.requests = count(option)
        case "--concurrency": soak.concurrency = min(count(option), 4096)
        case "--sample-every": soak.sampleEvery = count(option)
        case "--ca": soak.caFile = value(option)
        case "--time-limit": soak.timeLimitSeconds = Double(count(option))
        case "--expect-bytes": soak.expectBytes = count(option)
        default: fail("unknown argument \(option)")
        }
    }
    guard soak.url.hasPrefix("http://") || soak.url.hasPrefix("https://") else { fail("--url is required") }
    await soak.run()
case "allocations":
    var check = AllocationCheck()
    while let option = arguments.popFirst() {
        switch option {
        case "--url": check.httpURL = value(option)
        case "--websocket": check.webSocketURL = value(option)
        case "--operations": check.operations = count(option)
        default: fail("unknown argument \(option)")
        }
    }
    guard check.httpURL.hasPrefix("http://") else { fail("--url http://… is required") }
    await check.run()
default:
    fail("a mode is required")
}
