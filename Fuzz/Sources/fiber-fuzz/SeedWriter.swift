#if canImport(Glibc)
import Glibc
#endif

/// Writes each target's seeds as `DIR/<target>/seed-NNN` (Scripts/fuzz first removes the
/// old `seed-*` files; others, such as kept crash inputs, stay).
enum SeedWriter {
    static func writeAll(into directory: String) {
        for target in FuzzTarget.all {
            let folder = directory + "/" + target.name
            mkdir(directory, 0o755)
            mkdir(folder, 0o755)
            for (index, seed) in target.seeds().enumerated() {
                let path = folder + "/seed-" + String(index).leftPadded(3)
                guard let file = fopen(path, "wb") else { FuzzCheck.fail("cannot write \(path)") }
                _ = seed.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
                fclose(file)
            }
        }
    }
}

extension String {
    func leftPadded(_ width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
