// swift-tools-version: 6.2
import PackageDescription

let package = Package(
    name: "Fiber",
    products: [
        .library(name: "FiberRuntime", targets: ["FiberRuntime"]),
        .library(name: "FiberTesting", targets: ["FiberTesting"]),
        .library(name: "FiberWebSocket", targets: ["FiberWebSocket"]),
        .executable(name: "fiber", targets: ["fiber"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-collections", from: "1.1.0"),
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
                "CLibUV", "CLLHTTP", "CZlib", "CFiberShims",
                .product(name: "DequeModule", package: "swift-collections"),
            ]
        ),
        .target(
            name: "FiberWebSocket",
            dependencies: ["FiberRuntime", "CZlib", "COpenSSL", .product(name: "DequeModule", package: "swift-collections")]
        ),
        .target(name: "FiberTesting", dependencies: ["FiberRuntime", "FiberWebSocket"]),
        .executableTarget(name: "fiber", dependencies: ["FiberRuntime", "FiberTesting"]),
        .testTarget(
            name: "FiberRuntimeTests",
            dependencies: ["FiberRuntime", "FiberTesting", "CLibUV", "COpenSSL", "CLLHTTP", "CZlib"]
        ),
        .testTarget(name: "FiberTestingTests", dependencies: ["FiberTesting", "FiberRuntime"]),
        .testTarget(name: "FiberHTTPTests", dependencies: ["FiberRuntime", "FiberTesting", "CZlib"]),
        .testTarget(name: "FiberWebSocketTests", dependencies: ["FiberWebSocket", "FiberTesting", "FiberRuntime"]),
        .testTarget(name: "FiberInteropTests", dependencies: ["FiberRuntime", "FiberTesting", "CZlib"]),
    ],
    swiftLanguageModes: [.v6]
)
