/// A request ready for the wire: its serialized head and its body, with any file already open.
struct PreparedRequest: Sendable {
    enum Body: Sendable {
        case bytes([UInt8])
        case stream(length: Int?, @Sendable () -> AnyByteChunks)
        case file(LoopFile)
    }

    let method: String
    let target: HTTPTarget
    let isIdempotent: Bool
    let head: [UInt8]
    let body: Body?
    let uploadProgress: (@Sendable (Int, Int?) -> Void)?
    let downloadProgress: (@Sendable (Int, Int?) -> Void)?

    /// For error messages only (built when needed).
    var url: String { target.description }
}
