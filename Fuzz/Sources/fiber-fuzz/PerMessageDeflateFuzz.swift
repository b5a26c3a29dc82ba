@testable import FiberWebSocket

/// The reader of the server's `Sec-WebSocket-Extensions` answer.
///
/// Input: one options byte (bit 0: the offer asks the server to take no
/// context over; bit 1: the offer caps the server's window at 10 bits; bit 2:
/// it caps the client's at 12), then the header value.
///
/// Rules: parameters accepted are in range and keep the offer's promises; the
/// accepted parameters written back as an answer read as the same parameters.
enum PerMessageDeflateFuzz {
    static let target = FuzzTarget(name: "permessage-deflate", run: run, seeds: seeds)

    static func run(_ input: [UInt8]) {
        guard let first = input.first else { return }
        let offer = PerMessageDeflate(serverNoContextTakeover: first & 1 != 0, clientMaxWindowBits: first & 4 != 0 ? 12 : nil,
                                      serverMaxWindowBits: first & 2 != 0 ? 10 : nil)
        let header = String(decoding: input.dropFirst(), as: UTF8.self)
        guard let accepted = try? offer.accept(header) else { return }
        for bits in [accepted.clientMaxWindowBits, accepted.serverMaxWindowBits].compactMap({ $0 }) {
            FuzzCheck.require((8...15).contains(bits), "window bits \(bits) accepted")
        }
        if let cap = offer.serverMaxWindowBits {
            FuzzCheck.require((accepted.serverMaxWindowBits ?? 15) <= cap || accepted.serverMaxWindowBits == nil,
                              "server window \(String(describing: accepted.serverMaxWindowBits)) above the offer's \(cap)")
        }
        if offer.serverNoContextTakeover { FuzzCheck.require(accepted.serverNoContextTakeover, "no-context-takeover dropped") }
        let again: PerMessageDeflate?
        do {
            again = try offer.accept(answer(accepted))
        } catch {
            FuzzCheck.fail("the answer \(answer(accepted)) for \(accepted) was refused: \(error)")
        }
        FuzzCheck.require(again == accepted, "\(header) read as \(accepted), its answer \(answer(accepted)) as \(String(describing: again))")
    }

    /// A server's answer stating `parameters`.
    static func answer(_ parameters: PerMessageDeflate) -> String {
        var parts = ["permessage-deflate"]
        if parameters.clientNoContextTakeover { parts.append("client_no_context_takeover") }
        if parameters.serverNoContextTakeover { parts.append("server_no_context_takeover") }
        if let bits = parameters.clientMaxWindowBits { parts.append("client_max_window_bits=\(bits)") }
        if let bits = parameters.serverMaxWindowBits { parts.append("server_max_window_bits=\"\(bits)\"") }
        return parts.joined(separator: "; ")
    }

    static func seeds() -> [[UInt8]] {
        [
            [0] + Array("permessage-deflate".utf8),
            [1] + Array("permessage-deflate; server_no_context_takeover; client_max_window_bits=15".utf8),
            [2] + Array("permessage-deflate;server_max_window_bits=9;client_no_context_takeover".utf8),
            [4] + Array("permessage-deflate; client_max_window_bits=\"10\", ".utf8),
            [0] + Array("x-webkit-deflate-frame".utf8),
        ]
    }
}
