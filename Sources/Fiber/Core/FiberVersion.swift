/// The version of the Fiber library (and of the `fiber` command built with it).
public enum FiberVersion {
    /// The version, as semantic versioning spells it.
    public static let current = "0.1.0"
}
