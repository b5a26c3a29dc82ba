// swift-tools-version: 6.2
import PackageDescription

let package = Package(
    name: "FiberFuzz",
    dependencies: [
        .package(name: "Fiber", path: ".."),
    ],
    targets: [
        // The declaration of libFuzzer's driver, which the binary's `main` calls.
        .target(name: "CLibFuzzer"),
        .executableTarget(name: "fiber-fuzz", dependencies: [
            "CLibFuzzer",
            .product(name: "FiberRuntime", package: "Fiber"),
            .product(name: "Fiber", package: "Fiber"),
            .product(name: "FiberWebSocket", package: "Fiber"),
        ]),
    ],
    swiftLanguageModes: [.v6]
)
