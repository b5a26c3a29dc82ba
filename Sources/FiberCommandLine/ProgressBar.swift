/// A one-line progress bar for downloads: `[#####     ]  52%  5.1 MiB / 9.8 MiB`.
public struct ProgressBar: Sendable {
    /// Columns of the bar itself.
    public var width = 30

    /// A bar.
    public init(width: Int = 30) { self.width = width }

    /// The line for `done` bytes of `total` (a spinner-less count when the total is unknown).
    public func line(done: Int, total: Int?) -> String {
        guard let total, total > 0 else { return "\(Self.size(done)) received" }
        let fraction = min(1, Double(done) / Double(total))
        let filled = Int(fraction * Double(width))
        let bar = String(repeating: "#", count: filled) + String(repeating: " ", count: width - filled)
        let percent = Int((fraction * 100).rounded(.down))
        return "[\(bar)] \(String(repeating: " ", count: percent < 10 ? 2 : percent < 100 ? 1 : 0))\(percent)%  \(Self.size(done)) / \(Self.size(total))"
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
