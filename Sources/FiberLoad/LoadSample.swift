import FiberRuntime

/// What one request of a load test reports when it succeeds.
public struct LoadSample: Sendable {
    /// The HTTP status, when the operation is an HTTP request.
    public var status: Int?
    /// Body bytes received.
    public var bytes: Int
    /// The transport's breakdown (DNS, connect, TLS, first byte, total), when known.
    public var timing: RequestTiming?

    /// A sample with what the operation knows.
    public init(status: Int? = nil, bytes: Int = 0, timing: RequestTiming? = nil) {
        self.status = status
        self.bytes = bytes
        self.timing = timing
    }
}

/// A failed request of a load test, with the name it is tallied under.
public struct LoadFailure: Error, Sendable, CustomStringConvertible {
    /// The tally's name: "HTTP 503", "connection refused", "TLS: certificate expired", …
    public let kind: String

    /// A failure tallied under `kind`.
    public init(kind: String) { self.kind = kind }

    public var description: String { kind }

    /// The name an error is tallied under: the runtime's typed kinds when it
    /// is one of them, else the error's type.
    public static func kind(of error: any Error) -> String {
        switch error {
        case let failure as LoadFailure: failure.kind
        case let error as HTTPClientError:
            if let tls = error.tls { "TLS: \(tls.kind)" } else if let transport = error.transport { "\(transport.kind)" } else { "\(error.kind)" }
        case let error as TransportError: error.tls.map { "TLS: \($0.kind)" } ?? "\(error.kind)"
        case let error as TLSError: "TLS: \(error.kind)"
        case is CancellationError: "cancelled"
        default: String(describing: type(of: error))
        }
    }
}
