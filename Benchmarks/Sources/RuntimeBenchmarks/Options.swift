/// Command-line options of the benchmark binary.
struct Options: Sendable {
    enum Part: String, CaseIterable, Sendable { case baseline, cross, actor, echo, alloc }

    var help = false
    /// A short smoke run (about ten seconds); implies `--no-docs`.
    var quick = false
    /// Repetitions of every timed measurement (the median is reported).
    var runs = 3
    /// Seconds each echo run lasts (after a warm-up).
    var echoSeconds = 2.0
    /// Pin the loop / server and the callers / clients to different CPUs.
    var pin = true
    /// Where to write the "Runtime" section; nil: stdout only.
    var docsPath: String?
    var parts = Set(Part.allCases)
    /// Submitting-thread counts of the cross-thread benchmark.
    var threadCounts = [1, 8]
    /// Callers of the actor-call benchmark.
    var callers = ActorCallBenchmark.Caller.allCases

    /// Every benchmark in its default configuration (repetitions, echo time and pinning may differ).
    var isFullSuite: Bool {
        parts == Set(Part.allCases) && threadCounts == [1, 8] && callers == ActorCallBenchmark.Caller.allCases
    }

    static let usage = """
    usage: RuntimeBenchmarks [options]
      --quick              short smoke run (about 10 s); implies --no-docs
      --runs N             repetitions of every timed benchmark, median reported (default 3)
      --echo-seconds S     timed seconds per echo run (default 2)
      --no-pin             let the kernel place every thread (default: pin loop and callers to different CPUs)
      --docs PATH          write the "## Runtime" section of PATH (Docs/Performance.md);
                           only a run of the whole suite writes it
      --no-docs            do not write any file, even if --docs was given
      --threads LIST       submitting-thread counts of the cross-thread benchmark (default 1,8)
      --callers LIST       callers of the actor-call benchmark: actor, actor-pref, preference, global (default all)
      --only LIST          comma-separated subset of: baseline, cross, actor, echo, alloc
      -h, --help           this text
    """

    static func parse(_ arguments: [String]) throws -> Options {
        var options = Options()
        var noDocs = false
        var rest = arguments[...]
        func value(_ name: String) throws -> String {
            guard let v = rest.popFirst() else { throw BenchmarkError("\(name) needs a value") }
            return v
        }
        while let argument = rest.popFirst() {
            switch argument {
            case "-h", "--help": options.help = true
            case "--quick": options.quick = true
            case "--pin": options.pin = true
            case "--no-pin": options.pin = false
            case "--no-docs": noDocs = true
            case "--docs": options.docsPath = try value(argument)
            case "--runs":
                guard let n = Int(try value(argument)), (1...20).contains(n) else { throw BenchmarkError("--runs takes 1...20") }
                options.runs = n
            case "--echo-seconds":
                guard let s = Double(try value(argument)), s > 0, s <= 30 else {
                    throw BenchmarkError("--echo-seconds takes a number in (0, 30]")
                }
                options.echoSeconds = s
            case "--threads":
                let counts = try value(argument).split(separator: ",").map { Int($0) }
                guard !counts.isEmpty, counts.allSatisfy({ $0 != nil && (1...64).contains($0!) }) else {
                    throw BenchmarkError("--threads takes a comma-separated list of counts in 1...64")
                }
                options.threadCounts = counts.map { $0! }
            case "--callers":
                var callers: [ActorCallBenchmark.Caller] = []
                for name in try value(argument).split(separator: ",") {
                    guard let caller = ActorCallBenchmark.Caller.allCases.first(where: { $0.option == name }) else {
                        throw BenchmarkError("unknown caller \(name)")
                    }
                    callers.append(caller)
                }
                options.callers = callers
            case "--only":
                var parts = Set<Part>()
                for name in try value(argument).split(separator: ",") {
                    guard let part = Part(rawValue: String(name)) else { throw BenchmarkError("unknown part \(name)") }
                    parts.insert(part)
                }
                options.parts = parts
            default:
                throw BenchmarkError("unknown argument \(argument)")
            }
        }
        if options.quick {
            noDocs = true
            if !arguments.contains("--runs") { options.runs = 1 }
            if !arguments.contains("--echo-seconds") { options.echoSeconds = 0.5 }
        }
        if noDocs { options.docsPath = nil }
        // The section holds the whole suite; a partial run only prints.
        if options.docsPath != nil, !options.isFullSuite {
            print("note: --only, --threads or --callers select part of the suite; not writing \(options.docsPath!)")
            options.docsPath = nil
        }
        return options
    }
}
