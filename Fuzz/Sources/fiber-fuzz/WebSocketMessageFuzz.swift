@testable import FiberWebSocket

/// The message assembler, with and without permessage-deflate.
///
/// Input: one options byte (bit 0: permessage-deflate negotiated; bit 1: the
/// server takes no context over; bit 2: a 1000-byte message limit; bits 3-5:
/// the fragment size of the round trip), then bytes.
///
/// Rules: the bytes, read as frames from a server, give the same messages and
/// error fed whole or in pieces, and no message passes the limit; the bytes
/// sent as a binary message (and as a text one when they are UTF-8),
/// fragmented, compressed when negotiated, with a ping between fragments,
/// come out of the decoder and the assembler as they went in.
enum WebSocketMessageFuzz {
    static let target = FuzzTarget(name: "websocket-message", run: run, seeds: WebSocketMessageSeeds.all)

    struct Options {
        var deflate: PerMessageDeflate?
        var maxMessageSize: Int
        var fragmentSize: Int

        init(_ byte: UInt8) {
            deflate = byte & 1 == 0 ? nil : PerMessageDeflate(serverNoContextTakeover: byte & 2 != 0)
            maxMessageSize = byte & 4 == 0 ? 1 << 20 : 1000
            fragmentSize = [1, 2, 7, 64, 125, 126, 1000, 70_000][Int(byte >> 3 & 7)]
        }
    }

    static func run(_ input: [UInt8]) {
        guard let first = input.first else { return }
        let options = Options(first)
        let bytes = Array(input.dropFirst())
        let whole = assemble([0..<bytes.count], of: bytes, options)
        let split = assemble(Array(FuzzSplits(input: bytes)), of: bytes, options)
        FuzzCheck.require(whole.outputs == split.outputs, "whole gave \(whole.outputs.count) outputs, split \(split.outputs.count)")
        FuzzCheck.require(whole.error?.kind == split.error?.kind, "whole: \(String(describing: whole.error)), split: \(String(describing: split.error))")
        for case .message(let message) in whole.outputs {
            FuzzCheck.require(message.byteCount <= options.maxMessageSize, "a \(message.byteCount)-byte message past the limit")
        }
        roundTrip(.binary(bytes), options)
        if let text = String(validating: bytes, as: UTF8.self) { roundTrip(.text(text), options) }
    }

    static func assemble(_ reads: [Range<Int>], of bytes: [UInt8], _ options: Options)
        -> (outputs: [WebSocketMessageAssembler.Output], error: WebSocketError?) {
        var decoder = WebSocketFrameDecoder(role: .client)
        var assembler = WebSocketMessageAssembler(maxMessageSize: options.maxMessageSize, deflate: options.deflate)
        var outputs: [WebSocketMessageAssembler.Output] = []
        do {
            for range in reads {
                decoder.append(bytes[range])
                while let frame = try decoder.next() {
                    if let output = try assembler.consume(frame) { outputs.append(output) }
                }
            }
            return (outputs, nil)
        } catch {
            return (outputs, error)
        }
    }

    static func roundTrip(_ message: WebSocketMessage, _ options: Options) {
        let (opcode, payload): (WebSocketOpcode, [UInt8]) = switch message {
        case .text(let text): (.text, Array(text.utf8))
        case .binary(let bytes): (.binary, bytes)
        }
        var wire = payload
        if let deflate = options.deflate {
            do {
                wire = try DeflateCompressor(windowBits: 15, noContextTakeover: deflate.serverNoContextTakeover).compress(payload)
            } catch {
                FuzzCheck.fail("compressing \(payload.count) bytes failed: \(error)")
            }
        }
        var frames = WebSocketFrameEncoder.fragments(opcode: opcode, payload: wire, rsv1: options.deflate != nil,
                                                     maxFramePayload: options.fragmentSize)
        frames.insert(WebSocketFrame(opcode: .ping, payload: Array("between".utf8)), at: min(1, frames.count))
        let bytes = frames.flatMap { WebSocketFrameEncoder.encode($0, maskKey: nil) }
        let result = assemble(Array(FuzzSplits(input: bytes)), of: bytes, options)
        if payload.count > options.maxMessageSize {
            FuzzCheck.require(result.error?.kind == .messageTooBig, "a \(payload.count)-byte message passed: \(String(describing: result.error))")
            return
        }
        FuzzCheck.require(result.error == nil, "round trip failed: \(String(describing: result.error))")
        let ping = WebSocketMessageAssembler.Output.ping(Array("between".utf8))
        let expected: [WebSocketMessageAssembler.Output] = frames.count > 2 ? [ping, .message(message)] : [.message(message), ping]
        FuzzCheck.require(result.outputs == expected, "round trip gave \(result.outputs.count) outputs, not the message and the ping")
    }
}

/// Server frames of each kind: text, binary, fragmented with a ping between, compressed, close.
enum WebSocketMessageSeeds {
    static func all() -> [[UInt8]] {
        func wire(_ frames: [WebSocketFrame]) -> [UInt8] { frames.flatMap { WebSocketFrameEncoder.encode($0, maskKey: nil) } }
        let text = Array("Hello, WebSocket! ¿Qué tal? 😀".utf8)
        var compressed: [UInt8] = []
        do { compressed = try DeflateCompressor(windowBits: 15, noContextTakeover: false).compress(text) } catch {
            FuzzCheck.fail("compress failed: \(error)")
        }
        var fragments = WebSocketFrameEncoder.fragments(opcode: .text, payload: text, maxFramePayload: 4)
        fragments.insert(WebSocketFrame(opcode: .ping, payload: [1, 2]), at: 2)
        return [
            [0] + wire([WebSocketFrame(opcode: .text, payload: text)]),
            [0b1000] + wire([WebSocketFrame(opcode: .binary, payload: Array(0..<200))]),
            [0b10000] + wire(fragments),
            [1] + wire([WebSocketFrame(rsv1: true, opcode: .text, payload: compressed)]),
            [3] + wire(WebSocketFrameEncoder.fragments(opcode: .text, payload: compressed, rsv1: true, maxFramePayload: 5)),
            [4] + wire([WebSocketFrame(opcode: .close, payload: [0x03, 0xE9] + Array("going away".utf8))]),
            [0] + wire([WebSocketFrame(opcode: .pong, payload: []), WebSocketFrame(opcode: .close, payload: [])]),
        ]
    }
}
