// swift-tools-version: 6.2
import PackageDescription

// Fiber beside the observability packages of a server, in a package of its own
// because swift-otel takes minutes to build: `swift test --package-path Ecosystem`
// (Scripts/test runs it once, after the main suite).
let package = Package(
    name: "FiberEcosystem",
    dependencies: [
        .package(name: "Fiber", path: ".."),
        // OTLP/HTTP only: the gRPC exporter's dependencies would double the build.
        .package(url: "https://github.com/swift-otel/swift-otel", from: "1.6.0", traits: ["OTLPHTTP"]),
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.1.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.4.1"),
    ],
    targets: [
        .testTarget(name: "OTelExportTests", dependencies: [
            .product(name: "Fiber", package: "Fiber"),
            .product(name: "FiberTesting", package: "Fiber"),
            .product(name: "FiberRuntime", package: "Fiber"),
            .product(name: "OTel", package: "swift-otel"),
            .product(name: "Tracing", package: "swift-distributed-tracing"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ]),
    ],
    swiftLanguageModes: [.v6]
)
