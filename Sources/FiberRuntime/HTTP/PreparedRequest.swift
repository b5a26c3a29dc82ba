import Foundation

/// A request ready for the wire: its serialized head and its body, with any file already open.
struct PreparedRequest: Sendable {
    enum Body: Sendable {
        case bytes([UInt8])
        case data(Data)
        case stream(length: Int?, @Sendable () -> AnyByteChunks)
        case file(LoopFile)

        /// The length of a body in memory; nil for a stream or a file.
        var lengthInMemory: Int? {
            switch self {
            case .bytes(let bytes): bytes.count
            case .data(let data): data.count
            case .stream, .file: nil
            }
        }
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
