import CLibFuzzer
#if canImport(Glibc)
import Glibc
#endif

/// One binary holds every target (one link instead of one per target, which
/// under AddressSanitizer is most of the build); `FIBER_FUZZ_TARGET` picks
/// the target, and `FIBER_FUZZ_WRITE_SEEDS=DIR` writes every target's seeds
/// into `DIR/<target>/` and exits instead of fuzzing.
nonisolated(unsafe) private var selected: FuzzTarget?

/// The binary's entry point: libFuzzer's driver, with its flags from the command line.
@main
enum FiberFuzz {
    static func main() {
        var argc = CommandLine.argc
        var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv) { data, count in fuzzTestOneInput(data, count) })
    }
}

@_cdecl("LLVMFuzzerInitialize")
public func fuzzInitialize(_ argc: UnsafeMutablePointer<CInt>?, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>?) -> CInt {
    if let directory = getenv("FIBER_FUZZ_WRITE_SEEDS").map({ String(cString: $0) }) {
        SeedWriter.writeAll(into: directory)
        exit(0)
    }
    let names = FuzzTarget.all.map(\.name).joined(separator: " ")
    guard let name = getenv("FIBER_FUZZ_TARGET").map({ String(cString: $0) }) else {
        FuzzCheck.printError("fiber-fuzz: set FIBER_FUZZ_TARGET to one of: \(names)")
        exit(2)
    }
    guard let target = FuzzTarget.all.first(where: { $0.name == name }) else {
        FuzzCheck.printError("fiber-fuzz: no target \(name); targets: \(names)")
        exit(2)
    }
    selected = target
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let input = data.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? []
    selected?.run(input)
    return 0
}
