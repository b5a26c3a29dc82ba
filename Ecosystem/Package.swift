// swift-tools-version: 6.2
import PackageDescription

// Fiber beside the packages of a server (swift-otel, swift-nio, AsyncHTTPClient,
// swift-distributed-tracing), in a package of its own because they take minutes to
// build: `swift test --package-path Ecosystem` (Scripts/test runs it once, after the
// main suite).
let package = Package(
    name: "FiberEcosystem",
    dependencies: [
        .package(name: "Fiber", path: ".."),
        // OTLP/HTTP only: the gRPC exporter's dependencies would double the build.
        .package(url: "https://github.com/swift-otel/swift-otel", from: "1.6.0", traits: ["OTLPHTTP"]),
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.1.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.80.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.30.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
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
        // A file importing Fiber beside NIO, NIOSSL, AsyncHTTPClient and Tracing compiles and runs.
        .testTarget(name: "NameClashTests", dependencies: [
            .product(name: "Fiber", package: "Fiber"),
            .product(name: "FiberTesting", package: "Fiber"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
            .product(name: "NIOSSL", package: "swift-nio-ssl"),
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
            .product(name: "Tracing", package: "swift-distributed-tracing"),
        ]),
    ],
    swiftLanguageModes: [.v6]
)
