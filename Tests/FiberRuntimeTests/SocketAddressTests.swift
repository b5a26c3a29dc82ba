import FiberRuntime
import Testing

@Suite("Socket addresses")
struct SocketAddressTests {
    @Test(arguments: [
        ("127.0.0.1", "127.0.0.1:80"),
        ("::1", "[::1]:80"),
        ("[::1]", "[::1]:80"),
        ("2001:db8::8:800:200c:417a", "[2001:db8::8:800:200c:417a]:80"),
        ("::ffff:192.0.2.1", "[::ffff:c000:201]:80"),
        ("fe80::1%2", "[fe80::1]:80"),
        ("1:2:3:4:5:6:7:8", "[1:2:3:4:5:6:7:8]:80"),
    ])
    func parsesLiterals(text: String, expected: String) throws {
        let address = try #require(SocketAddress(ipLiteral: text, port: 80))
        #expect(address.description == expected)
    }

    @Test(arguments: ["localhost", "1.2.3", "256.1.1.1", "01.2.3.4", "1:2:3:4:5:6:7:8:9", "1::2::3", "", "::g", "[::1"])
    func rejectsNonLiterals(text: String) {
        #expect(SocketAddress(ipLiteral: text, port: 1) == nil)
    }

    @Test func knowsLoopback() {
        #expect(SocketAddress(ipLiteral: "127.9.9.9", port: 1)!.isLoopback)
        #expect(SocketAddress(ipLiteral: "::1", port: 1)!.isLoopback)
        #expect(!SocketAddress(ipLiteral: "192.0.2.1", port: 1)!.isLoopback)
        #expect(SocketAddress(ipLiteral: "fe80::1%3", port: 1)!.scopeID == 3)
    }
}
