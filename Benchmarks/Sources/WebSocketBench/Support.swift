import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Raises RLIMIT_NOFILE to its hard limit (10,000 connections need more than the usual 1,024).
func raiseOpenFileLimit() {
    var limit = rlimit()
    guard getrlimit(RLIMIT_NOFILE_VALUE, &limit) == 0 else { return }
    limit.rlim_cur = limit.rlim_max
    _ = setrlimit(RLIMIT_NOFILE_VALUE, &limit)
}

#if os(Linux)
let RLIMIT_NOFILE_VALUE = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
#endif

/// Resident memory in bytes, from /proc/self/statm.
func residentBytes() -> Int {
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let fields = text.split(separator: " ")
    guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
    return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
}

func secondsOf(_ d: Duration) -> Double {
    Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
}
