/// A one-line progress bar for downloads: `[#####     ]  52%  5.1 MiB / 9.8 MiB  2.3 MiB/s  ETA 0:02`.
public struct ProgressBar: Sendable {
    /// Columns of the bar itself.
    public var width = 30

    /// A bar.
    public init(width: Int = 30) { self.width = width }

    /// The line for `done` bytes of `total` (a spinner-less count when the total is unknown),
    /// with the speed and, when the total is known, the time left at that speed.
    public func line(done: Int, total: Int?, bytesPerSecond: Double? = nil) -> String {
        var speed = ""
        if let bytesPerSecond, bytesPerSecond.isFinite, bytesPerSecond > 0 {
            speed = "  \(Self.size(Int(bytesPerSecond)))/s"
            if let total, total > done { speed += "  ETA \(Self.clock(Double(total - done) / bytesPerSecond))" }
        }
        guard let total, total > 0 else { return "\(Self.size(done)) received" + speed }
        let fraction = min(1, Double(done) / Double(total))
        let filled = Int(fraction * Double(width))
        let bar = String(repeating: "#", count: filled) + String(repeating: " ", count: width - filled)
        let percent = Int((fraction * 100).rounded(.down))
        return "[\(bar)] \(String(repeating: " ", count: percent < 10 ? 2 : percent < 100 ? 1 : 0))\(percent)%  \(Self.size(done)) / \(Self.size(total))" + speed
    }

    /// Seconds as `m:ss`, or `h:mm:ss` from an hour (rounded up, so the last second shows as 0:01).
    public static func clock(_ seconds: Double) -> String {
        let whole = Int(min(seconds.rounded(.up), 359_999))
        let (hours, minutes, secs) = (whole / 3600, whole / 60 % 60, whole % 60)
        let two = { (n: Int) in n < 10 ? "0\(n)" : "\(n)" }
        return hours > 0 ? "\(hours):\(two(minutes)):\(two(secs))" : "\(minutes):\(two(secs))"
    }

    /// Bytes in B, KiB, MiB or GiB with one decimal.
    public static func size(_ bytes: Int) -> String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB"]
        var value = Double(bytes)
        var unit = 0
        while value >= 1024, unit < units.count - 1 { value /= 1024; unit += 1 }
        return unit == 0 ? "\(bytes) B" : "\((value * 10).rounded() / 10) \(units[unit])"
    }
}
