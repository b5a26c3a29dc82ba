// swift-tools-version: 6.2
import PackageDescription

let package = Package(
    name: "Fiber",
    products: [
        .library(name: "FiberRuntime", targets: ["FiberRuntime"]),
        .library(name: "Fiber", targets: ["Fiber"]),
        .library(name: "FiberTesting", targets: ["FiberTesting"]),
        .library(name: "FiberLoad", targets: ["FiberLoad"]),
        .library(name: "FiberSharing", targets: ["FiberSharing"]),
        .library(name: "FiberWebSocket", targets: ["FiberWebSocket"]),
        .library(name: "FiberSQLite", targets: ["FiberSQLite"]),
        .library(name: "FiberDependencies", targets: ["FiberDependencies"]),
        .library(name: "FiberDependenciesTesting", targets: ["FiberDependenciesTesting"]),
        .library(name: "FiberOpenAPI", targets: ["FiberOpenAPI"]),
        .library(name: "FiberSwiftConfiguration", targets: ["FiberSwiftConfiguration"]),
        .executable(name: "fiber", targets: ["fiber"]),
        .library(name: "FiberServiceLifecycle", targets: ["FiberServiceLifecycle"]),
        .executable(name: "fiber-test-pki", targets: ["fiber-test-pki"]),
    ],
    // Content codings beyond gzip and deflate, each behind a trait (on by default) so that a build
    // without it needs neither the library nor its headers, and does not advertise the coding.
    traits: [
        .default(enabledTraits: ["Brotli", "Zstd"]),
        .trait(name: "Brotli", description: "Decode `br` response bodies (links libbrotlidec)."),
        .trait(name: "Zstd", description: "Decode `zstd` response bodies (links libzstd)."),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-collections", from: "1.1.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        // 3.x and 4.x: jwt-kit 5.8 and vapor/jwt 5 need 4.x, older stacks 3.x (Scripts/check-ecosystem-resolution).
        .package(url: "https://github.com/apple/swift-crypto", "3.0.0"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.1.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.4.0"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", from: "0.2.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // Only FiberDependencies and its tests use it; the core library does not.
        .package(url: "https://github.com/pointfreeco/swift-dependencies", from: "1.17.0"),
        // HTTPRequest, HTTPResponse and HTTPFields at the edge of `Fiber` (tiny, no dependencies).
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        // Only FiberOpenAPI and its tests use it: a ClientTransport for generated OpenAPI clients.
        .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.13.4"),
        // Only FiberSwiftConfiguration uses it. No traits: no JSON, YAML, swift-log or
        // ServiceLifecycle comes along; an application enables those on its own line.
        .package(url: "https://github.com/apple/swift-configuration", from: "1.4.0", traits: []),
        // Only FiberServiceLifecycle and its tests use it.
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        // FiberTesting makes its test certificates with it.
        .package(url: "https://github.com/apple/swift-certificates", from: "1.21.1"),
    ],
    targets: [
        // C libraries, found through pkg-config (Scripts/setup installs them).
        .systemLibrary(name: "CLibUV", path: "CSupport/CLibUV", pkgConfig: "libuv",
                       providers: [.apt(["libuv1-dev"])]),
        .systemLibrary(name: "COpenSSL", path: "CSupport/COpenSSL", pkgConfig: "openssl",
                       providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CLLHTTP", path: "CSupport/CLLHTTP", pkgConfig: "libllhttp"),
        .systemLibrary(name: "CZlib", path: "CSupport/CZlib", pkgConfig: "zlib",
                       providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CSQLite", path: "CSupport/CSQLite", pkgConfig: "sqlite3",
                       providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "CNGHTTP2", path: "CSupport/CNGHTTP2", pkgConfig: "libnghttp2",
                       providers: [.apt(["libnghttp2-dev"])]),
        .target(name: "CFiberShims", path: "CSupport/CFiberShims"),
        .systemLibrary(name: "CBrotli", path: "CSupport/CBrotli", pkgConfig: "libbrotlidec",
                       providers: [.apt(["libbrotli-dev"])]),
        .systemLibrary(name: "CZstd", path: "CSupport/CZstd", pkgConfig: "libzstd",
                       providers: [.apt(["libzstd-dev"])]),

        .target(
            name: "FiberRuntime",
            dependencies: [
                "CLibUV", "CLLHTTP", "CZlib", "COpenSSL", "CNGHTTP2", "CFiberShims",
                .target(name: "CBrotli", condition: .when(traits: ["Brotli"])),
                .target(name: "CZstd", condition: .when(traits: ["Zstd"])),
                .product(name: "DequeModule", package: "swift-collections"),
                // Connection-level events at debug and trace, to a logger the client is given.
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "Fiber",
            dependencies: [
                "FiberRuntime",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "Instrumentation", package: "swift-distributed-tracing"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
        .target(
            name: "FiberWebSocket",
            dependencies: ["FiberRuntime", "Fiber", .product(name: "Crypto", package: "swift-crypto"),
                           .product(name: "DequeModule", package: "swift-collections")]
        ),
        .target(name: "FiberTesting", dependencies: [
            "FiberRuntime", "Fiber", "FiberWebSocket",
            .product(name: "X509", package: "swift-certificates"),
            .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "_CryptoExtras", package: "swift-crypto"),
        ]),
        // `fiber-test-pki FOLDER`: the test PKI for scripts and benchmarks.
        .executableTarget(name: "fiber-test-pki", dependencies: ["FiberTesting"]),
        // The load generator behind `fiber bench`, for users' own harnesses.
        .target(name: "FiberLoad", dependencies: [
            "FiberRuntime", .product(name: "Histogram", package: "hdrhistogram-swift"),
        ]),
        // The `fiber` command's subcommands, a library so that tests run them.
        .target(name: "FiberCommandLine", dependencies: [
            "FiberRuntime", "Fiber", "FiberLoad", "FiberWebSocket", "FiberSQLite",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        .executableTarget(name: "fiber", dependencies: [
            "FiberRuntime", "Fiber", "FiberTesting", "FiberLoad", "FiberCommandLine", "FiberWebSocket",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        .target(
            name: "FiberSharing",
            dependencies: ["Fiber", "FiberRuntime", .product(name: "Crypto", package: "swift-crypto")]
        ),
        // A cache storage in a SQLite file that several processes share; only its users link SQLite.
        .target(name: "FiberSQLite", dependencies: ["Fiber", "FiberRuntime", "CSQLite"]),
        // swift-dependencies integration: its `Dependencies` product only (no macros, so no swift-syntax build).
        .target(name: "FiberDependencies", dependencies: [
            "Fiber", .product(name: "Dependencies", package: "swift-dependencies"),
        ]),
        .target(name: "FiberDependenciesTesting", dependencies: ["FiberDependencies", "Fiber", "FiberTesting"]),
        // A ClientTransport for clients made by swift-openapi-generator, over a `Fiber` client.
        .target(name: "FiberOpenAPI", dependencies: [
            "Fiber", .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
            .product(name: "HTTPTypes", package: "swift-http-types"),
        ]),
        // Fiber.Configuration read from swift-configuration's ConfigReader (files, environment).
        .target(name: "FiberSwiftConfiguration", dependencies: [
            "Fiber", "FiberRuntime", .product(name: "Configuration", package: "swift-configuration"),
        ]),
        // swift-service-lifecycle integration: a `Service` that drains a client and closes its WebSockets.
        .target(name: "FiberServiceLifecycle", dependencies: [
            "Fiber", "FiberWebSocket", .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ]),
        // A process running a ServiceGroup with the Fiber service, for the test that sends it SIGTERM.
        .executableTarget(name: "FiberLifecycleProbe", dependencies: [
            "Fiber", "FiberWebSocket", "FiberServiceLifecycle",
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            .product(name: "Logging", package: "swift-log"),
        ], path: "Tests/FiberLifecycleProbe"),
        .testTarget(
            name: "FiberRuntimeTests",
            dependencies: ["FiberRuntime", "FiberTesting", "CLibUV", "COpenSSL", "CLLHTTP", "CZlib"]
        ),
        .testTarget(name: "FiberTestingTests", dependencies: [
            "FiberTesting", "FiberRuntime", .product(name: "X509", package: "swift-certificates"),
        ]),
        .testTarget(name: "FiberHTTPTests", dependencies: ["FiberRuntime", "FiberTesting", "CZlib"]),
        .testTarget(name: "FiberTLSTests", dependencies: ["FiberRuntime", "FiberTesting", "COpenSSL"]),
        .testTarget(name: "FiberLoadTests", dependencies: ["FiberLoad", "FiberRuntime", "FiberTesting"]),
        .testTarget(name: "FiberCommandLineTests", dependencies: ["FiberCommandLine", "FiberRuntime", "FiberTesting"]),
        .testTarget(
            name: "FiberTests",
            dependencies: [
                "Fiber", "FiberTesting", "FiberRuntime", "FiberWebSocket", "FiberSQLite",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "Instrumentation", package: "swift-distributed-tracing"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "InMemoryTracing", package: "swift-distributed-tracing"),
            ]
        ),
        .testTarget(name: "FiberWebSocketTests", dependencies: ["FiberWebSocket", "Fiber", "FiberTesting", "FiberRuntime"]),
        .testTarget(name: "FiberSharingTests", dependencies: ["FiberSharing", "Fiber", "FiberTesting", "FiberRuntime"]),
        .testTarget(name: "FiberDependenciesTests", dependencies: [
            "FiberDependencies", "FiberDependenciesTesting", "Fiber", "FiberTesting", "FiberRuntime",
            .product(name: "Dependencies", package: "swift-dependencies"),
            .product(name: "DependenciesTestSupport", package: "swift-dependencies"),
        ]),
        .testTarget(name: "FiberCacheStorageTests", dependencies: [
            "Fiber", "FiberSharing", "FiberSQLite", "FiberTesting", "FiberRuntime",
        ]),
        .testTarget(name: "FiberServiceLifecycleTests", dependencies: [
            "FiberServiceLifecycle", "FiberLifecycleProbe", "Fiber", "FiberWebSocket", "FiberTesting", "FiberRuntime",
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            .product(name: "Logging", package: "swift-log"),
        ]),
        .testTarget(name: "FiberInteropTests", dependencies: ["Fiber", "FiberRuntime", "FiberTesting", "CZlib"]),
        // The fault matrix: real links in network namespaces (needs root; Scripts/fault-matrix reports it).
        .testTarget(name: "FiberFaultTests", dependencies: ["Fiber", "FiberRuntime", "FiberTesting"]),
        // The generated client under Generated/ is committed (Scripts/generate-openapi-test-client), not built by a plugin.
        .testTarget(name: "FiberOpenAPITests", dependencies: [
            "FiberOpenAPI", "Fiber", "FiberRuntime", "FiberTesting",
            .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
            .product(name: "HTTPTypes", package: "swift-http-types"),
        ], exclude: ["Generated/openapi.yaml", "Generated/openapi-generator-config.yaml"]),
        .testTarget(name: "FiberSwiftConfigurationTests", dependencies: [
            "FiberSwiftConfiguration", "Fiber", "FiberRuntime", "FiberTesting",
            .product(name: "Configuration", package: "swift-configuration"),
        ]),
    ],
    swiftLanguageModes: [.v6]
)
