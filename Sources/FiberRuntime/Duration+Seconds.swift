extension Duration {
    /// The duration in seconds, as a `Double`: its attoseconds read as two 64-bit
    /// halves, because `components` divides a 128-bit integer by 10¹⁸ and
    /// `Double(attoseconds)` is the generic 128-bit conversion, both much slower on a
    /// path that converts durations on every request. Exact to a `Double`'s precision;
    /// a negative duration is read as its magnitude, whose halves do not cancel.
    package var seconds: Double {
        if _high < 0 { return -(Duration.zero - self).seconds }
        return (Double(_high) * 0x1p64 + Double(_low)) / 1e18
    }
}
