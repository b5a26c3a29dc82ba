// The `fiber` command. For now it runs the demos of the runtime and of the
// HTTP/1.1 transport; the request, bench and WebSocket commands arrive with
// the client API.
let arguments = CommandLine.arguments.dropFirst()
switch arguments.first ?? "demo" {
case "demo":
    print("== TCP echo over the runtime")
    try await EchoDemo.run()
    print("\n== HTTP/1.1 over the runtime")
    try await HTTPDemo.run()
default:
    print("usage: fiber demo")
    print("  demo   a TCP echo and an HTTP/1.1 tour on loopback (servers and clients in this process)")
}
