// swift-tools-version: 6.2
import PackageDescription

// The benchmark suite of Fiber, kept out of the root package so that neither the
// library nor its tests link the malloc-counting shim below, nor anything the
// benchmarks compare Fiber against (AsyncHTTPClient is a dependency of this
// package only, never of the root package).
// Run it with `Scripts/bench-runtime` and `Scripts/bench-http` from the repository root.
let package = Package(
    name: "FiberBenchmarks",
    dependencies: [
        // Named explicitly: a path dependency's identity is otherwise its directory's
        // name, which depends on where the repository was cloned.
        .package(name: "Fiber", path: ".."),
        // The peer of the HTTP client benchmark (issue 3), used by `AHCBench` only.
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        // For the pipeline benchmark's key and logger (already in the graph through Fiber).
        // 3.x and 4.x: jwt-kit 5.8 and vapor/jwt 5 need 4.x, older stacks 3.x (Scripts/check-ecosystem-resolution).
        .package(url: "https://github.com/apple/swift-crypto", "3.0.0"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        // The SwiftNIO peer of the WebSocket client benchmark (issue 6), used by `WebSocketKitBench` only.
        .package(url: "https://github.com/vapor/websocket-kit", from: "2.16.0"),
    ],
    targets: [
        // Counts allocations by interposing malloc & co., and pins threads. Only the benchmark
        // executables depend on it, so only those binaries replace malloc.
        .target(name: "CBenchSupport"),
        .executableTarget(
            name: "RuntimeBenchmarks",
            dependencies: [
                "CBenchSupport",
                .product(name: "FiberRuntime", package: "Fiber"),
            ]
        ),

        // The HTTP/1.1 client benchmark (issue 3), driven by `Scripts/bench-http`.
        // The load driver shared by the two Swift clients: concurrent request loops,
        // latencies, allocation counting, the result line. It depends on neither client.
        .target(name: "HTTPBenchKit", dependencies: ["CBenchSupport"]),
        // AsyncHTTPClient (SwiftNIO) as a peer. It does not depend on Fiber, so it
        // builds while Fiber's HTTP client is being written.
        .executableTarget(
            name: "AHCBench",
            dependencies: [
                "HTTPBenchKit",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ]
        ),
        // Fiber over HTTP/2 (TLS, ALPN h2), driven by `Scripts/bench-h2`: the runtime and the `Fiber` API.
        .executableTarget(
            name: "FiberH2Bench",
            dependencies: [
                "HTTPBenchKit",
                .product(name: "Fiber", package: "Fiber"),
                .product(name: "FiberRuntime", package: "Fiber"),
            ]
        ),
        // AsyncHTTPClient over HTTP/2 (TLS, ALPN h2), driven by `Scripts/bench-h2`.
        .executableTarget(
            name: "AHCH2Bench",
            dependencies: [
                "HTTPBenchKit",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ]
        ),
        // Fiber's HTTP client.
        .executableTarget(
            name: "FiberHTTPBench",
            dependencies: [
                "HTTPBenchKit",
                .product(name: "Fiber", package: "Fiber"),
                .product(name: "FiberRuntime", package: "Fiber"),
            ]
        ),
        // Uploads and downloads of files through `Fiber`, driven by `Scripts/bench-transfer`.
        .executableTarget(
            name: "TransferBench",
            dependencies: [
                "CBenchSupport",
                .product(name: "Fiber", package: "Fiber"),
                .product(name: "FiberRuntime", package: "Fiber"),
            ]
        ),
        // The cost of Fiber's interceptor pipeline (issue 5), driven by `Scripts/bench-pipeline`:
        // `Fiber.send` with no interceptor or all seven built-ins, over the real transport.
        .executableTarget(
            name: "PipelineBench",
            dependencies: [
                "HTTPBenchKit",
                .product(name: "Fiber", package: "Fiber"),
                .product(name: "FiberRuntime", package: "Fiber"),
                .product(name: "FiberSQLite", package: "Fiber"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        // The WebSocket client benchmark (issue 6), driven by `Scripts/bench-websocket`.
        .executableTarget(
            name: "WebSocketBench",
            dependencies: [
                "HTTPBenchKit",
                .product(name: "FiberRuntime", package: "Fiber"),
                .product(name: "FiberWebSocket", package: "Fiber"),
                .product(name: "FiberTesting", package: "Fiber"),
            ]
        ),
        // The soak (RSS over a million requests through `Fiber`) and the allocation
        // regression check, driven by `Scripts/soak` and `Scripts/check-allocations`.
        .executableTarget(
            name: "SoakBench",
            dependencies: [
                "HTTPBenchKit",
                .product(name: "Fiber", package: "Fiber"),
                .product(name: "FiberRuntime", package: "Fiber"),
                .product(name: "FiberWebSocket", package: "Fiber"),
            ]
        ),
        // vapor/websocket-kit (SwiftNIO) as a peer, on the same echo server. It does not
        // depend on Fiber; NIOCore and NIOPosix come with websocket-kit, as AHCBench's do
        // with AsyncHTTPClient.
        .executableTarget(
            name: "WebSocketKitBench",
            dependencies: [
                .product(name: "WebSocketKit", package: "websocket-kit"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
