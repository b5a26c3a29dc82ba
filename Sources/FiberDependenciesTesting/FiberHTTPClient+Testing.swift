import Fiber
import FiberDependencies
import FiberTesting
import Foundation

extension FiberHTTPClient {
    /// A live client over a `Fiber` whose transport is a fresh `MockTransport`,
    /// and that mock, to stub answers and inspect the requests sent.
    ///
    /// ```swift
    /// let (client, mock) = FiberHTTPClient.test()
    /// mock.stubAll(.ok(body: #"{"ok": true}"#))
    /// let response = try await client.get("/health", [:], [:])
    /// #expect(mock.lastRequest?.url?.path == "/health")
    /// ```
    ///
    /// The whole client runs, interceptors of `configure` included; only the
    /// network is replaced. Relative paths resolve against `baseURL`.
    public static func test(
        baseURL: String = "https://api.example.com",
        configure: (inout Fiber.Configuration) -> Void = { _ in }
    ) -> (FiberHTTPClient, MockTransport) {
        let mock = MockTransport()
        let fiber = Fiber(baseURL) {
            configure(&$0)
            $0.transport = mock
        }
        return (.live(fiber), mock)
    }

    /// A client that answers every request with `response` (a `StubResponse`,
    /// which may carry an error to throw instead).
    public static func stub(_ response: StubResponse) -> FiberHTTPClient {
        let (client, mock) = test()
        mock.stubAll(response)
        return client
    }
}
