import FiberWebSocket
import Testing

@Suite("Closing handshake")
struct CloseStateMachineTests {
    @Test func weCloseFirstThenThePeerAnswers() {
        var m = WebSocketCloseStateMachine()
        #expect(m.closeRequested(code: 1000, reason: "bye") == [.sendClose(code: 1000, reason: "bye"), .startTimer])
        #expect(!m.canSendData && m.state == .closing)
        #expect(m.closeRequested(code: 1001, reason: "") == [])
        #expect(m.closeReceived(code: 1000, reason: "") == [.closeSocket, .finish(code: 1000, reason: "", error: nil)])
        #expect(m.state == .closed)
        #expect(m.timerFired() == [])
    }

    @Test func thePeerClosesFirstAndWeEchoItsCode() {
        var m = WebSocketCloseStateMachine()
        #expect(m.closeReceived(code: 4001, reason: "go") == [.sendClose(code: 4001, reason: ""), .closeSocket,
                                                               .finish(code: 4001, reason: "go", error: nil)])
        var n = WebSocketCloseStateMachine()
        #expect(n.closeReceived(code: nil, reason: "") == [.sendClose(code: nil, reason: ""), .closeSocket,
                                                           .finish(code: 1005, reason: "", error: nil)])
    }

    @Test func timeoutEndsWith1006() {
        var m = WebSocketCloseStateMachine()
        _ = m.closeRequested(code: 1000, reason: "")
        let actions = m.timerFired()
        #expect(actions.first == .closeSocket)
        guard case .finish(let code, _, let error)? = actions.last else { Issue.record("no finish"); return }
        #expect(code == 1006 && error?.kind == .closeTimeout)
    }

    @Test func protocolErrorsSendTheirCodeOnce() {
        var m = WebSocketCloseStateMachine()
        let error = WebSocketError(.invalidUTF8, "bad", closeCode: 1007)
        #expect(m.failed(error) == [.sendClose(code: 1007, reason: ""), .closeSocket, .finish(code: 1007, reason: "bad", error: error)])
        #expect(m.failed(error) == [])
        var closing = WebSocketCloseStateMachine()
        _ = closing.closeRequested(code: 1000, reason: "")
        #expect(closing.failed(error) == [.closeSocket, .finish(code: 1007, reason: "bad", error: error)])
    }

    @Test func aLostSocketIs1006() {
        var m = WebSocketCloseStateMachine()
        #expect(m.transportEnded(nil) == [.closeSocket, .finish(code: 1006, reason: "connection closed without a close frame", error: nil)])
        #expect(m.closeReceived(code: 1000, reason: "") == [])
    }
}
