import Foundation

/// `Scripts/h2_peer.py`: an HTTP/2 server (Python, PyPI `h2`) that behaves well or badly
/// per request path: GOAWAY mid-stream, RST_STREAM, tiny windows, header-list and HPACK
/// bombs, CONTINUATION, PING, SETTINGS and RST floods, trailers, HTTP/1.1-only headers,
/// held streams under SETTINGS_MAX_CONCURRENT_STREAMS, echoes. The script's docstring
/// lists every path. TLS with ALPN `h2`, or h2c with prior knowledge.
public final class HTTP2Peer: Sendable {
    /// Whether `python3` has the `h2` module (`Scripts/setup` installs it); suites are `.enabled(if:)` this.
    public static var isAvailable: Bool { PythonPeer.canImport("h2") }

    /// The SETTINGS the peer sends on every connection (`nil`: the protocol's default).
    public struct Settings: Sendable {
        /// SETTINGS_INITIAL_WINDOW_SIZE: how much of an upload a stream may send before the peer's WINDOW_UPDATE.
        public var initialWindowSize: Int?
        /// SETTINGS_MAX_CONCURRENT_STREAMS.
        public var maxConcurrentStreams: Int?
        /// SETTINGS_MAX_FRAME_SIZE (16384...16777215).
        public var maxFrameSize: Int?

        /// Settings with the given values.
        public init(initialWindowSize: Int? = nil, maxConcurrentStreams: Int? = nil, maxFrameSize: Int? = nil) {
            self.initialWindowSize = initialWindowSize
            self.maxConcurrentStreams = maxConcurrentStreams
            self.maxFrameSize = maxFrameSize
        }

        var arguments: [String] {
            var arguments: [String] = []
            if let initialWindowSize { arguments += ["--initial-window", String(initialWindowSize)] }
            if let maxConcurrentStreams { arguments += ["--max-concurrent-streams", String(maxConcurrentStreams)] }
            if let maxFrameSize { arguments += ["--max-frame-size", String(maxFrameSize)] }
            return arguments
        }
    }

    private let peer: PythonPeer
    /// True when it speaks TLS.
    public let isTLS: Bool

    /// The port it listens on (127.0.0.1).
    public var port: Int { peer.port }

    /// `https://127.0.0.1:<port>`, or `http://` for h2c.
    public var origin: String { "\(isTLS ? "https" : "http")://127.0.0.1:\(port)" }

    /// The URL of `path` (starting with `/`, with its query) on this peer.
    public func url(_ path: String) -> String { origin + path }

    /// Starts the peer.
    ///
    /// - Parameters:
    ///   - certificates: the test PKI (`chain.pem`, `leaf.key`); `nil` for h2c.
    ///   - settings: the SETTINGS of every connection.
    /// - Throws: `PythonPeer.StartError` when the script does not start (e.g. no `h2` module).
    public init(certificates: TestCertificates? = nil, settings: Settings = Settings()) throws {
        var arguments = settings.arguments
        if let certificates { arguments += ["--cert", certificates.path("chain.pem"), "--key", certificates.path("leaf.key")] }
        peer = try PythonPeer(script: "h2_peer.py", arguments: arguments)
        isTLS = certificates != nil
    }

    /// The peer's PID (a test may stop it with SIGSTOP to make a server that no longer answers).
    public var processIdentifier: Int32 { peer.process.processIdentifier }

    /// Kills the peer by its PID.
    public func stop() { peer.stop() }
}
