import FoundationEssentials

extension LoadFailure: LocalizedError {
    /// One sentence for people: the failure the request is tallied under.
    public var errorDescription: String? { "the request failed: \(kind)" }
}
