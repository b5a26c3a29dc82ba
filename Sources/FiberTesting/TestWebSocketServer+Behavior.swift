import FiberWebSocket

extension TestWebSocketServer {
    /// What the server does with each connection after the handshake.
    public enum Behavior: Sendable {
        /// Echoes every message (compressed when permessage-deflate was
        /// negotiated), answers pings, echoes the client's close.
        case echo
        /// Runs `steps` in order, then reads and records until the client leaves.
        case script([Step])
    }

    /// One step of a scripted connection.
    public enum Step: Sendable {
        /// Sends these exact bytes (frames built by hand, valid or not).
        case send([UInt8])
        /// Sends a frame, unmasked, as a server does.
        case sendFrame(WebSocketFrame)
        /// Waits for the client's next frame (recorded in `clientFrames`).
        case receiveFrame
        /// Waits until the client sends a close frame.
        case expectClose
        /// Closes the TCP connection (FIN).
        case closeConnection
        /// Resets the TCP connection (RST).
        case reset
        /// Reads and discards without ever answering (a silent peer: no pongs).
        case beSilent
    }

    /// How the server answers the upgrade request.
    public struct Handshake: Sendable {
        /// Refuse with this status and body instead of 101.
        public var refuse: (status: Int, body: String)?
        /// Answer with this `Sec-WebSocket-Accept` instead of the right one.
        public var acceptOverride: String?
        /// Choose this subprotocol (nil: the first the client offered, if any, when `chooseSubprotocol`).
        public var subprotocol: String?
        /// Answer `Sec-WebSocket-Extensions` with exactly this (nil: negotiate permessage-deflate when `deflate`).
        public var extensionsOverride: String?
        /// Accept permessage-deflate when the client offers it.
        public var deflate: Bool
        /// Bytes sent right after the 101 head, in the same write (first frames).
        public var trailingBytes: [UInt8]

        /// A plain handshake: 101, right accept key, no subprotocol, no compression.
        public init(refuse: (status: Int, body: String)? = nil, acceptOverride: String? = nil, subprotocol: String? = nil,
                    extensionsOverride: String? = nil, deflate: Bool = false, trailingBytes: [UInt8] = []) {
            self.refuse = refuse
            self.acceptOverride = acceptOverride
            self.subprotocol = subprotocol
            self.extensionsOverride = extensionsOverride
            self.deflate = deflate
            self.trailingBytes = trailingBytes
        }
    }
}
