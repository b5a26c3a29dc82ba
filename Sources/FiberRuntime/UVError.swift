import CLibUV

/// The one place where a libuv status code becomes a typed error.
enum UVError {
    /// Maps a negative libuv status to a `TransportError` named for `operation`.
    static func transportError(_ status: Int32, operation: String, host: String? = nil, address: String? = nil) -> TransportError {
        TransportError(kind(of: status), operation: operation, host: host, address: address, code: status,
                       codeName: String(cString: uv_err_name(status)),
                       systemMessage: String(cString: uv_strerror(status)))
    }

    /// Throws when `status` is negative; returns it otherwise.
    @discardableResult
    static func check(_ status: Int32, _ operation: @autoclosure () -> String) throws(TransportError) -> Int32 {
        if status < 0 { throw transportError(status, operation: operation()) }
        return status
    }

    static func kind(of status: Int32) -> TransportError.Kind {
        switch status {
        case UV_ECONNREFUSED.rawValue: .connectionRefused
        case UV_ECONNRESET.rawValue, UV_EPIPE.rawValue, UV_ECONNABORTED.rawValue: .connectionReset
        case UV_ENETUNREACH.rawValue, UV_EHOSTUNREACH.rawValue, UV_EADDRNOTAVAIL.rawValue, UV_ENETDOWN.rawValue: .unreachable
        case UV_ETIMEDOUT.rawValue: .timeout
        case UV_EOF.rawValue: .closedByPeer
        case UV_EADDRINUSE.rawValue: .addressInUse
        case UV_ECANCELED.rawValue, UV_EBADF.rawValue: .closed
        case UV_EAI_NONAME.rawValue, UV_EAI_AGAIN.rawValue, UV_EAI_FAIL.rawValue, UV_EAI_NODATA.rawValue,
             UV_EAI_ADDRFAMILY.rawValue, UV_EAI_SERVICE.rawValue: .dnsFailure
        default: .other
        }
    }
}
