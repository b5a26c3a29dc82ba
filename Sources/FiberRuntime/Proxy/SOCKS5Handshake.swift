/// The client's side of a SOCKS5 `CONNECT` (RFC 1928), with no authentication
/// or username/password (RFC 1929). Pure: the tunnel's shell writes what it
/// says and feeds it what the proxy sends.
///
/// The destination goes to the proxy as given: a name as a domain (ATYP 3),
/// so the proxy resolves it; an IPv4 or IPv6 literal as an address (ATYP 1, 4).
///
/// Lifecycle: `greeting()` is sent; each `received(_:)` answers `.send` (the
/// next message), `.needMore`, `.established` once the proxy's reply says
/// succeeded, or `.failed`.
struct SOCKS5Handshake {
    enum Step: Equatable {
        case needMore
        case send([UInt8])
        case established
        case failed(ProxyFailure.Reason, replyCode: Int?, detail: String)
    }

    private enum State { case choosingMethod, authenticating, connecting, done }

    private let host: String
    private let port: Int
    private let credentials: ProxyCredentials?
    private var state = State.choosingMethod
    private var buffer: [UInt8] = []

    init(host: String, port: Int, credentials: ProxyCredentials?) {
        self.host = host
        self.port = port
        self.credentials = credentials
    }

    /// Version 5 and the methods offered: none (0), and username/password (2) with credentials.
    func greeting() -> [UInt8] {
        credentials == nil ? [5, 1, 0] : [5, 2, 0, 2]
    }

    /// Takes the proxy's next bytes.
    mutating func received(_ bytes: some Collection<UInt8>) -> Step {
        buffer += bytes
        switch state {
        case .choosingMethod:
            guard buffer.count >= 2 else { return .needMore }
            guard buffer[0] == 5 else { return malformed("version \(buffer[0]) instead of 5") }
            let method = buffer[1]
            guard buffer.count == 2 else { return malformed("bytes after the method choice") }
            buffer.removeAll()
            switch method {
            case 0:
                state = .connecting
                return .send(connectRequest())
            case 2 where credentials != nil:
                state = .authenticating
                return .send(authenticationRequest())
            case 0xFF:
                state = .done
                return .failed(.authenticationRequired, replyCode: nil,
                               detail: credentials == nil ? "it accepts no unauthenticated clients"
                                                          : "it accepts neither no authentication nor a user name and password")
            default:
                return malformed("it chose method \(method), which was not offered")
            }
        case .authenticating:
            guard buffer.count >= 2 else { return .needMore }
            // RFC 1929 says version 1; some proxies answer 5.
            guard buffer[0] == 1 || buffer[0] == 5 else { return malformed("authentication reply version \(buffer[0])") }
            guard buffer.count == 2 else { return malformed("bytes after the authentication reply") }
            let status = buffer[1]
            buffer.removeAll()
            guard status == 0 else {
                state = .done
                return .failed(.authenticationRequired, replyCode: Int(status), detail: "it refused the user name and password")
            }
            state = .connecting
            return .send(connectRequest())
        case .connecting:
            guard buffer.count >= 2 else { return .needMore }
            guard buffer[0] == 5 else { return malformed("reply version \(buffer[0]) instead of 5") }
            let reply = buffer[1]
            if reply != 0 {
                state = .done
                return .failed(.refused, replyCode: Int(reply), detail: Self.meaning(ofReply: reply))
            }
            guard buffer.count >= 5 else { return .needMore }
            let length: Int
            switch buffer[3] {
            case 1: length = 4 + 4 + 2
            case 4: length = 4 + 16 + 2
            case 3: length = 4 + 1 + Int(buffer[4]) + 2
            default: return malformed("address type \(buffer[3]) in its reply")
            }
            guard buffer.count >= length else { return .needMore }
            guard buffer.count == length else { return malformed("bytes followed its reply before the client spoke") }
            state = .done
            return .established
        case .done:
            return malformed("bytes after the handshake ended")
        }
    }

    /// The proxy closed the connection before the handshake was done.
    func closed() -> Step {
        let during = switch state {
        case .choosingMethod: "before choosing an authentication method"
        case .authenticating: "during authentication (a refusal of the credentials, most likely)"
        case .connecting, .done: "before replying to CONNECT"
        }
        return .failed(state == .authenticating ? .authenticationRequired : .closed, replyCode: nil, detail: during)
    }

    private mutating func malformed(_ detail: String) -> Step {
        state = .done
        return .failed(.malformedReply, replyCode: nil, detail: detail)
    }

    /// RFC 1929: version 1, then the length-prefixed user name and password.
    private func authenticationRequest() -> [UInt8] {
        let user = Array((credentials?.username ?? "").utf8.prefix(255))
        let password = Array((credentials?.password ?? "").utf8.prefix(255))
        return [1, UInt8(user.count)] + user + [UInt8(password.count)] + password
    }

    /// CONNECT (command 1) to the destination, a name by ATYP 3 so that the proxy resolves it.
    private func connectRequest() -> [UInt8] {
        var out: [UInt8] = [5, 1, 0]
        if let v4 = SocketAddress.parseIPv4(host) {
            out += [1] + v4
        } else if host.contains(":"), let (v6, _) = SocketAddress.parseIPv6(host) {
            out += [4] + v6
        } else {
            let name = Array(host.utf8.prefix(255))
            out += [3, UInt8(name.count)] + name
        }
        out += [UInt8(port >> 8), UInt8(port & 0xFF)]
        return out
    }

    /// RFC 1928 §6's words for a reply code.
    static func meaning(ofReply code: UInt8) -> String {
        let meaning = switch code {
        case 1: "general SOCKS server failure"
        case 2: "connection not allowed by ruleset"
        case 3: "network unreachable"
        case 4: "host unreachable"
        case 5: "connection refused"
        case 6: "TTL expired"
        case 7: "command not supported"
        case 8: "address type not supported"
        default: "unassigned reply"
        }
        return "reply \(code): \(meaning)"
    }
}
