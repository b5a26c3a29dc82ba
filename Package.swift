// swift-tools-version: 6.2
import PackageDescription

let package = Package(
    name: "Fiber",
    products: [
        .library(name: "FiberRuntime", targets: ["FiberRuntime"]),
        .library(name: "FiberTesting", targets: ["FiberTesting"]),
        .library(name: "FiberLoad", targets: ["FiberLoad"]),
        .executable(name: "fiber", targets: ["fiber"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-collections", from: "1.1.0"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", from: "0.2.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
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
        .target(name: "CFiberShims", path: "CSupport/CFiberShims"),

        .target(
            name: "FiberRuntime",
            dependencies: [
                "CLibUV", "CLLHTTP", "CZlib", "COpenSSL", "CFiberShims",
                .product(name: "DequeModule", package: "swift-collections"),
            ]
        ),
        .target(name: "FiberTesting", dependencies: ["FiberRuntime"]),
        // The load generator behind `fiber bench`, for users' own harnesses.
        .target(name: "FiberLoad", dependencies: [
            "FiberRuntime", .product(name: "Histogram", package: "hdrhistogram-swift"),
        ]),
        // The `fiber` command's subcommands, a library so that tests run them.
        .target(name: "FiberCommandLine", dependencies: [
            "FiberRuntime", "FiberLoad", .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        .executableTarget(name: "fiber", dependencies: [
            "FiberRuntime", "FiberTesting", "FiberCommandLine", .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        .testTarget(
            name: "FiberRuntimeTests",
            dependencies: ["FiberRuntime", "FiberTesting", "CLibUV", "COpenSSL", "CLLHTTP", "CZlib"]
        ),
        .testTarget(name: "FiberTestingTests", dependencies: ["FiberTesting", "FiberRuntime"]),
        .testTarget(name: "FiberHTTPTests", dependencies: ["FiberRuntime", "FiberTesting", "CZlib"]),
        .testTarget(name: "FiberCommandLineTests", dependencies: ["FiberCommandLine", "FiberRuntime", "FiberTesting"]),
        .testTarget(name: "FiberLoadTests", dependencies: ["FiberLoad", "FiberRuntime", "FiberTesting"]),
        .testTarget(name: "FiberTLSTests", dependencies: ["FiberRuntime", "FiberTesting", "COpenSSL"]),
        .testTarget(name: "FiberInteropTests", dependencies: ["FiberRuntime", "FiberTesting", "CZlib"]),
    ],
    swiftLanguageModes: [.v6]
)
