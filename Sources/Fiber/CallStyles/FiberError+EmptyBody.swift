extension FiberError {
    /// True when a value was expected and the body was empty: a `.decodingError`
    /// whose cause is `EmptyResponseBody` (what the chain's serializers and the
    /// completion methods report for a 2xx without a body).
    public var isEmptyResponseBody: Bool {
        if case .decodingError(let cause, _) = self { cause is EmptyResponseBody } else { false }
    }
}
