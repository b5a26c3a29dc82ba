import FiberRuntime

/// Questions about a failure that its case alone does not answer, for code that
/// decides what to do next (retry, show an offline state, report a transfer or an empty body).
extension FiberError {
    /// True for failures a retry may cure: `.timeout` and `.networkError` (a refused,
    /// reset or unreachable connection, a malformed response). `RetryInterceptor`
    /// retries these, on methods it may retry.
    public var isTransient: Bool {
        switch self {
        case .timeout, .networkError: true
        default: false
        }
    }

    /// True when the machine looks offline: the client's `ConnectionMonitor` said so
    /// (an `OfflineError`), no route to the network or host (`ENETUNREACH`,
    /// `EHOSTUNREACH`, `EADDRNOTAVAIL`), or a name lookup that failed for now
    /// (`EAI_AGAIN`). A name that does not exist is not offline.
    public var isOffline: Bool {
        if case .networkError(let underlying) = self, underlying is OfflineError { return true }
        guard let transport = transportError else { return false }
        return transport.kind == .unreachable || (transport.kind == .dnsFailure && transport.codeName == "EAI_AGAIN")
    }

    /// True when a transfer failed for a reason of its own: a download's file,
    /// checksum or ranges (`TransferFailure`), or an upload's body (a file missing,
    /// unreadable or changing size: `HTTPClientError` of kind `.requestBody`).
    public var isTransferFailure: Bool {
        guard case .networkError(let underlying) = self else { return false }
        if underlying is TransferFailure { return true }
        return (underlying as? HTTPClientError)?.kind == .requestBody
    }

    /// True when a value was expected and the body was empty: a `.decodingError`
    /// whose cause is `EmptyResponseBody` (what the chain's serializers and the
    /// completion methods report for a 2xx without a body).
    public var isEmptyResponseBody: Bool {
        if case .decodingError(let cause, _) = self { cause is EmptyResponseBody } else { false }
    }

    /// The socket-level failure inside a `.networkError`, when there is one.
    public var transportError: TransportError? {
        guard case .networkError(let underlying) = self else { return nil }
        if let error = underlying as? TransportError { return error }
        return (underlying as? HTTPClientError)?.transport
    }

    /// The case without its payload, to compare errors by what happened.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        case httpError, decodingError, networkError, timeout, cancelled, interceptor, invalidURL, encodingError
    }

    /// The case without its payload.
    public var kind: Kind {
        switch self {
        case .httpError: .httpError
        case .decodingError: .decodingError
        case .networkError: .networkError
        case .timeout: .timeout
        case .cancelled: .cancelled
        case .interceptor: .interceptor
        case .invalidURL: .invalidURL
        case .encodingError: .encodingError
        }
    }
}

/// Errors compare by what happened, not by what they carry: the same case, and for
/// `.httpError` the same status, `.interceptor` the same name, `.invalidURL` the same
/// text. Nested errors, bodies and responses are not compared, so a test can write
/// `#expect(error == .timeout)` or compare with `.httpError(statusCode: 404, …)`.
extension FiberError: Equatable {
    public static func == (lhs: FiberError, rhs: FiberError) -> Bool {
        switch (lhs, rhs) {
        case (.httpError(let a, _, _), .httpError(let b, _, _)): a == b
        case (.interceptor(let a, _), .interceptor(let b, _)): a == b
        case (.invalidURL(let a), .invalidURL(let b)): a == b
        default: lhs.kind == rhs.kind
        }
    }
}
