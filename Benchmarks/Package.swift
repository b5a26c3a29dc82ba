// swift-tools-version: 6.2
import PackageDescription

// The benchmark suite of Fiber's runtime, kept out of the root package so that
// neither the library nor its tests link the malloc-counting shim below.
// Run it with `Scripts/bench-runtime` from the repository root.
let package = Package(
    name: "FiberBenchmarks",
    dependencies: [
        // Named explicitly: a path dependency's identity is otherwise its directory's
        // name, which depends on where the repository was cloned.
        .package(name: "Fiber", path: ".."),
    ],
    targets: [
        // Counts allocations by interposing malloc & co., and pins threads. Only the benchmark
        // executable depends on it, so only that binary replaces malloc.
        .target(name: "CBenchSupport"),
        .executableTarget(
            name: "RuntimeBenchmarks",
            dependencies: [
                "CBenchSupport",
                .product(name: "FiberRuntime", package: "Fiber"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
