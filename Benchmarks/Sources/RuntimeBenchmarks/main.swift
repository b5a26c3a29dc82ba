import FiberRuntime
#if canImport(Glibc)
import Glibc
#endif

// The runtime benchmarks of Fiber. Run with `Scripts/bench-runtime`
// from the repository root, or directly:
//   swift run -c release --package-path Benchmarks RuntimeBenchmarks [options]
// Every loop is bounded in count and in time; nothing is asserted on timings.

let options: Options
do {
    options = try Options.parse(Array(CommandLine.arguments.dropFirst()))
} catch {
    print("error: \(error)\n\n\(Options.usage)")
    exit(2)
}
if options.help {
    print(Options.usage)
    exit(0)
}

do {
    let report = try await Suite(options: options).run()
    print("")
    print(report.markdownTables())
    if let path = options.docsPath {
        try report.updateDocs(at: path)
        print("updated the \"\(Report.sectionTitle)\" section of \(path)")
    }
} catch {
    print("error: \(error)")
    exit(1)
}
exit(0)
