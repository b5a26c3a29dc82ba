import CBenchSupport
#if canImport(Glibc)
import Glibc
#endif

/// Raises RLIMIT_NOFILE to its hard limit (10,000 connections need more than the usual 1,024).
public func raiseOpenFileLimit() {
    var limit = rlimit()
    guard getrlimit(RLIMIT_NOFILE_VALUE, &limit) == 0 else { return }
    limit.rlim_cur = limit.rlim_max
    _ = setrlimit(RLIMIT_NOFILE_VALUE, &limit)
}

#if os(Linux)
private let RLIMIT_NOFILE_VALUE = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
#endif

/// Resident memory of this process in bytes, from /proc/self/statm (0 when unreadable).
public func residentBytes() -> Int {
    let fd = open("/proc/self/statm", O_RDONLY)
    guard fd >= 0 else { return 0 }
    defer { close(fd) }
    // "size resident shared text lib data dt", in pages; read without Foundation or
    // an allocation, so sampling does not disturb what it measures.
    var buffer = (UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0), UInt64(0))
    let pages: Int? = withUnsafeMutableBytes(of: &buffer) { raw -> Int? in
        let n = read(fd, raw.baseAddress, raw.count)
        guard n > 0 else { return nil }
        var field = 0
        var value = 0
        for byte in raw.prefix(n) {
            if byte == UInt8(ascii: " ") {
                if field == 1 { return value }
                field += 1
                value = 0
            } else if byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
        }
        return field == 1 ? value : nil
    }
    return (pages ?? 0) * Int(sysconf(Int32(_SC_PAGESIZE)))
}

/// Bytes of the C heap in use: what the process's objects and buffers hold, unlike
/// resident memory, which also counts the allocator's free pages and thread stacks.
public func heapBytesInUse() -> Int { Int(bench_heap_in_use()) }

/// A duration in seconds.
public func secondsOf(_ d: Duration) -> Double {
    Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
}

/// `http://host:port/path` as (`http://host:port`, `/path`).
public func splitOrigin(_ url: String) -> (origin: String, path: String) {
    let scalars = Array(url.utf8)
    var start = 0
    if let i = (0..<max(scalars.count - 2, 0)).first(where: { scalars[$0] == UInt8(ascii: ":") && scalars[$0 + 1] == UInt8(ascii: "/") && scalars[$0 + 2] == UInt8(ascii: "/") }) {
        start = i + 3
    }
    guard let slash = scalars[start...].firstIndex(of: UInt8(ascii: "/")) else { return (url, "/") }
    return (String(decoding: scalars[..<slash], as: UTF8.self), String(decoding: scalars[slash...], as: UTF8.self))
}
