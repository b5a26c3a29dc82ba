import Dependencies
import Fiber
import Foundation
import IssueReporting

/// The key of `\.fiber`.
private enum FiberKey: DependencyKey {
    /// A client with no base URL (paths must be absolute `http(s)` URLs) over the
    /// shared transport; applications set their own at startup.
    static var liveValue: Fiber { Fiber.withDependencyDefaults("", configure: { _ in }) }

    /// A client whose every request reports a test failure and throws
    /// `FiberError.networkError(underlying: UnimplementedEndpoint)`.
    static var testValue: Fiber {
        Fiber(Self.placeholderBase) { $0.transport = AnsweringTransport.unimplemented }
    }

    /// A client whose every request is answered `200` with an empty body.
    static var previewValue: Fiber {
        Fiber(Self.placeholderBase) { $0.transport = AnsweringTransport.emptyOK }
    }

    /// Resolves relative paths of test and preview clients; nothing is ever sent there.
    static let placeholderBase = "https://fiber.invalid"
}

/// The key of `\.fiberDefaults`.
private enum FiberDefaultsKey: DependencyKey {
    /// `FiberDefaults.shared`, as it is when read.
    static var liveValue: FiberDefaults { .shared }
    /// The documented defaults, whatever the process set `shared` to.
    static var testValue: FiberDefaults { FiberDefaults() }
}

extension DependencyValues {
    /// The `Fiber` client the application uses: set it once at startup with
    /// `withDependencies` or `prepareDependencies`. Its test value fails any test
    /// that sends a request through it without an override.
    public var fiber: Fiber {
        get { self[FiberKey.self] }
        set { self[FiberKey.self] = newValue }
    }

    /// The tunable constants (`FiberDefaults`) of clients made through this module
    /// (`FiberHTTPClient.live(_:configure:)`, the live `\.fiber`).
    public var fiberDefaults: FiberDefaults {
        get { self[FiberDefaultsKey.self] }
        set { self[FiberDefaultsKey.self] = newValue }
    }
}

/// A transport that answers without a network: every request fails (reporting a
/// test failure) or gets an empty `200`.
struct AnsweringTransport: FiberTransport {
    private let answer: @Sendable (TransportRequest) throws -> (Data, TransportResponse)

    static let unimplemented = AnsweringTransport { request in
        let error = UnimplementedEndpoint(endpoint: "Fiber.send", target: request.url?.absoluteString ?? "")
        reportIssue(error.description)
        throw FiberError.networkError(underlying: error)
    }

    static let emptyOK = AnsweringTransport { request in
        (Data(), TransportResponse(statusCode: 200, url: request.url))
    }

    func send(_ request: TransportRequest) async throws -> (Data, TransportResponse) {
        try answer(request)
    }
}
