// The `fiber` command. For now it runs the runtime demo; the request, bench
// and WebSocket commands arrive with the client API.
let arguments = CommandLine.arguments.dropFirst()
switch arguments.first ?? "demo" {
case "demo":
    try await EchoDemo.run()
default:
    print("usage: fiber demo")
    print("  demo   a TCP echo over the runtime on loopback (server and client in this process)")
}
