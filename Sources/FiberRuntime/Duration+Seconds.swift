extension Duration {
    /// The duration in seconds, as a `Double`. (From the components: `Double(attoseconds)`
    /// is the generic 128-bit conversion, measured several times slower.)
    package var seconds: Double {
        let (s, atto) = components
        return Double(s) + Double(atto) / 1e18
    }
}
