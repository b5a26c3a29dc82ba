import Dependencies
import DependenciesTestSupport
import FiberDependencies
import FiberRuntime
import Foundation
import Testing

/// The conventions of swift-dependencies: a test value that fails loudly, a preview value, a live value.
@Suite struct DependencyConventionsTests {
    /// An endpoint used in a test without an override records a test failure and throws a typed error.
    @Test func testValueFailsATestThatUsesAnEndpointNotOverridden() async throws {
        @Dependency(\.fiberHTTPClient) var httpClient
        for (name, call) in endpoints(of: httpClient) {
            // The error is caught here, so the known issue must be the reported one.
            try await Testing.withKnownIssue {
                do {
                    try await call()
                    Issue.record("\(name) answered without an override")
                } catch {
                    let unimplemented = try #require(unimplementedEndpoint(in: error))
                    #expect(unimplemented.endpoint == "FiberHTTPClient.\(name)")
                }
            } matching: { issue in
                issue.comments.contains { $0.rawValue.contains("FiberHTTPClient.\(name)(") && $0.rawValue.contains("without an override") }
            }
        }
    }

    /// Overriding one endpoint leaves the others failing loudly.
    @Test func overridingOneEndpointKeepsTheOthersUnimplemented() async throws {
        try await withDependencies {
            $0.fiberHTTPClient.get = { _, _, _ in .empty }
        } operation: {
            @Dependency(\.fiberHTTPClient) var httpClient
            let overridden = try await httpClient.get("/", [:], [:])
            #expect(overridden.statusCode == 200)
            try await Testing.withKnownIssue {
                await #expect(throws: FiberError.self) { try await httpClient.post("/", nil, [:]) }
            } matching: { issue in
                issue.comments.contains { $0.rawValue.contains("FiberHTTPClient.post(") }
            }
        }
    }

    /// `\.fiber` in a test without an override fails the request loudly, with no network.
    @Test func fiberTestValueFailsLoudly() async throws {
        @Dependency(\.fiber) var fiber
        try await Testing.withKnownIssue {
            await #expect(throws: FiberError.self) { try await fiber.get("/users") }
        } matching: { issue in
            issue.comments.contains { $0.rawValue.contains("Fiber.send(\"https://fiber.invalid/users\")") }
        }
    }

    /// Previews answer `200` with an empty body, from both keys.
    @Test func previewValuesAnswerEmpty() async throws {
        try await withDependencies {
            $0.context = .preview
        } operation: {
            @Dependency(\.fiberHTTPClient) var httpClient
            for (_, call) in endpoints(of: httpClient) { try await call() }
            let empty = try await httpClient.get("/a", [:], [:])
            #expect(empty.data.isEmpty)
            @Dependency(\.fiber) var fiber
            let response = try await fiber.post("/b")
            #expect(response.statusCode == 200 && response.data.isEmpty)
        }
    }

    /// The live `\.fiber` has no base URL: a relative path is a typed `invalidURL`, an absolute one is sent.
    @Test func liveFiberNeedsAbsoluteURLs() async throws {
        try await withDependencies {
            $0.context = .live
        } operation: {
            @Dependency(\.fiber) var fiber
            #expect(fiber.baseURL.isEmpty)
            await #expect {
                try await fiber.get("/relative")
            } throws: { error in
                if case .invalidURL = error as? FiberError { true } else { false }
            }
        }
    }

    /// `\.fiberDefaults` is the documented defaults in tests, whatever the process set globally.
    @Test func defaultsTestValueIsTheDocumentedOne() {
        @Dependency(\.fiberDefaults) var defaults
        #expect(defaults.jitterFraction == 0.25 && defaults.jsonContentType == "application/json")
    }

    private func endpoints(of client: FiberHTTPClient) -> [(String, @Sendable () async throws -> Void)] {
        [
            ("get", { _ = try await client.get("/a", [:], [:]) }),
            ("post", { _ = try await client.post("/a", Data("x".utf8), [:]) }),
            ("put", { _ = try await client.put("/a", nil, [:]) }),
            ("patch", { _ = try await client.patch("/a", nil, [:]) }),
            ("delete", { _ = try await client.delete("/a", [:], [:]) }),
            ("send", { _ = try await client.send(FiberRequest(url: "https://api.example.com/a")) }),
        ]
    }

    private func unimplementedEndpoint(in error: any Error) -> UnimplementedEndpoint? {
        if case .networkError(let underlying) = error as? FiberError { underlying as? UnimplementedEndpoint } else { nil }
    }
}
