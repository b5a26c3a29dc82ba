import CLibUV

/// What a Unix domain socket path must be to be connected to: `sun_path` holds
/// 108 bytes with its terminating NUL on Linux, and libuv silently cuts a longer
/// path (connecting to another socket, or none), so the client checks first.
enum UnixSocketPath {
    /// The longest path `sun_path` holds (108 bytes, one for the NUL).
    static let maxLength = 107

    /// Why `path` cannot name a socket, or nil when it can.
    static func problem(_ path: String) -> String? {
        if path.isEmpty { return "the path is empty" }
        if path.utf8.contains(0) { return "the path contains a NUL byte" }
        if path.utf8.count > maxLength { return "the path is \(path.utf8.count) bytes, over the \(maxLength) a socket address holds" }
        return nil
    }
}

extension UVError {
    /// A failed connect to the socket at `path`: `ENOENT` is `.noSuchSocket` (for a
    /// connect, a missing file means a missing socket); others as for any socket.
    static func unixConnectError(_ status: Int32, path: String) -> TransportError {
        let error = transportError(status, operation: "connect", address: "unix:\(path)")
        guard status == UV_ENOENT.rawValue else { return error }
        return TransportError(.noSuchSocket, operation: "connect", address: error.address, code: error.code,
                              codeName: error.codeName, systemMessage: error.systemMessage)
    }
}
