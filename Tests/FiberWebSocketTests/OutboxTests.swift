@testable import FiberWebSocket
import Testing

/// The outgoing order as a value, without sockets. (`#expect` cannot call a
/// mutating method, so results are taken first.)
@Suite("Outbox")
struct OutboxTests {
    typealias Item = WebSocketOutbox.Item

    static let ping: [UInt8] = [0x89, 0]
    static let pong: [UInt8] = [0x8A, 0]
    static let close: [UInt8] = [0x88, 0]

    /// Every item a writer would take, in order; the claim is released at the end.
    static func drain(_ outbox: inout WebSocketOutbox) -> [Item] {
        var items: [Item] = []
        guard outbox.claimWriter() else { return items }
        while let item = outbox.next() { items.append(item) }
        return items
    }

    /// What a writer takes next, once it holds the claim.
    static func take(_ outbox: inout WebSocketOutbox, _ count: Int) -> [Item?] {
        (0..<count).map { _ in outbox.next() }
    }

    @Test func aPongQueuedBeforeAMessageLeavesFirst() {
        var outbox = WebSocketOutbox()
        let accepted = outbox.enqueueControl(Self.pong)
        let message = outbox.enqueueMessage([[1], [2]])
        #expect(accepted && message != nil)
        #expect(Self.drain(&outbox) == [.frames([Self.pong], message: nil), .frames([[1], [2]], message: message)])
    }

    @Test func pingsAndPongsGoAheadOfMessagesNotYetStartedButNeverIntoAStartedWrite() {
        var outbox = WebSocketOutbox()
        let first = outbox.enqueueMessage([[1]])
        let second = outbox.enqueueMessage([[2]])
        let claimed = outbox.claimWriter()
        let started = outbox.next()   // being written when the pong and ping come
        let accepted = [outbox.enqueueControl(Self.pong), outbox.enqueueControl(Self.ping)]
        let rest = Self.take(&outbox, 4)
        #expect(claimed && accepted == [true, true])
        #expect(started == .frames([[1]], message: first))
        #expect(rest == [.frames([Self.pong], message: nil), .frames([Self.ping], message: nil),
                         .frames([[2]], message: second), nil])
        #expect(!outbox.isWriting)
    }

    @Test func theCloseFrameWaitsForAcceptedMessagesAndNothingFollowsIt() {
        var outbox = WebSocketOutbox()
        let message = outbox.enqueueMessage([[1]])
        let pong = outbox.enqueueControl(Self.pong)
        let close = outbox.enqueueClose(Self.close)
        let later = (outbox.enqueueMessage([[9]]), outbox.enqueueControl(Self.ping), outbox.enqueueClose(Self.close))
        outbox.enqueueSocketClose()
        outbox.enqueueSocketClose()
        #expect(pong && close)
        #expect(later == (nil, false, false))
        #expect(Self.drain(&outbox) == [
            .frames([Self.pong], message: nil), .frames([[1]], message: message),
            .frames([Self.close], message: nil), .closeSocket,
        ])
    }

    @Test func oneWriterAtATime() {
        var outbox = WebSocketOutbox()
        let claimedWhenEmpty = outbox.claimWriter()
        _ = outbox.enqueueMessage([[1]])
        let claims = (outbox.claimWriter(), outbox.claimWriter())
        #expect(!claimedWhenEmpty)
        #expect(claims == (true, false))
        _ = outbox.next()
        _ = outbox.enqueueMessage([[2]])
        // A sender that wrote its own message hands the rest to another writer...
        let handedOff = outbox.handOff()
        #expect(handedOff && outbox.isWriting)
        _ = outbox.next()
        // ...and releases the claim when nothing is left.
        let handedOffEmpty = outbox.handOff()
        #expect(!handedOffEmpty && !outbox.isWriting && outbox.isEmpty)
    }

    @Test func abortingDropsEverythingAndNamesTheMessagesWhoseSendersMustFail() {
        var outbox = WebSocketOutbox()
        let a = outbox.enqueueMessage([[1]])
        _ = outbox.enqueueControl(Self.ping)
        let b = outbox.enqueueMessage([[2]])
        let dropped = outbox.abort()
        let later = (outbox.enqueueMessage([[3]]), outbox.enqueueControl(Self.pong))
        #expect(dropped == [a, b].compactMap { $0 })
        #expect(outbox.isEmpty)
        #expect(later == (nil, false))
    }
}
