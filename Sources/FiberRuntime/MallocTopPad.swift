import CFiberShims
#if canImport(Glibc)
import Glibc
#endif

/// glibc gives the top of a heap back to the kernel whenever a free of 64 KiB
/// or more leaves more than 128 KiB there, and the next allocation faults the
/// pages in again, zeroed. A streamed HTTPS download hit that on every read:
/// 100,000 page faults and a fifth of its CPU per 100 MiB
/// (`Docs/Performance.md`). Keeping 512 KiB of padding at the top of each heap
/// (`M_TOP_PAD`) stops the churn, at the cost of up to that much resident
/// memory per malloc arena.
///
/// Process-wide, like ignoring SIGPIPE: applied once when the first event
/// loop group starts, unless `GLIBC_TUNABLES` already sets `top_pad`, or
/// `FIBER_MALLOC_TOP_PAD` says otherwise (a byte count; `0` leaves glibc's
/// default).
enum MallocTopPad {
    static let defaultBytes = 512 * 1024

    /// The padding set (nil: left to glibc), once the first group started.
    static let applied: Int? = {
        if let tunables = getenv("GLIBC_TUNABLES").map({ String(cString: $0) }), tunables.contains("top_pad") { return nil }
        let bytes = getenv("FIBER_MALLOC_TOP_PAD").flatMap { Int(String(cString: $0)) } ?? defaultBytes
        guard bytes > 0, cfiber_set_malloc_top_pad(Int32(clamping: bytes)) == 1 else { return nil }
        return bytes
    }()
}
