import FiberRuntime
import FiberTesting
import Foundation
import Testing

/// nginx and nghttpd as HTTP/2 servers, checked with `nghttp -v`: over TLS (ALPN h2) and
/// h2c (prior knowledge), each location the HTTP/2 tests rely on.
@Suite(.serialized, .timeLimit(.minutes(2)), .enabled(if: Nghttp.isInstalled, "nghttp is not installed (Scripts/setup installs nghttp2-client)"))
struct HTTP2ServerTests {
    @Test(.enabled(if: NginxServer.isInstalled, "nginx is not installed"), arguments: [true, false])
    func nginxServesHTTP2(tls: Bool) async throws {
        let certificates = try await TestCertificates.shared()
        let nginx = try await NginxServer.startHTTP2(certificates: tls ? certificates : nil)
        do {
            try await checkNginx(nginx, tls: tls)
        } catch {
            await nginx.stop()
            throw error
        }
        let problems = await nginx.stop()
        #expect(problems.isEmpty, "\(problems)")
    }

    private func checkNginx(_ nginx: NginxServer, tls: Bool) async throws {
        let hello = try await Nghttp.run(["-v", nginx.url("/hello")])
        #expect(hello.succeeded, "\(hello.output)")
        #expect(hello.output.contains("recv DATA frame <length=13, flags=0x01"))
        #expect(hello.output.contains(NginxServer.http2HelloBody))
        if tls { #expect(hello.output.contains("The negotiated protocol: h2")) }

        let large = try await Nghttp.run(["-nv", nginx.url("/1m")])
        #expect(large.succeeded)
        // 1 MiB outgrows the 64 KiB stream window: nghttp must have given window back.
        #expect(large.count("send WINDOW_UPDATE frame") > 0)
        let dataBytes = large.output.matches(of: /recv DATA frame <length=(\d+)/).compactMap { Int($0.1) }.reduce(0, +)
        #expect(dataBytes == 1 << 20)

        let trailers = try await Nghttp.run(["-v", nginx.url("/trailers")])
        #expect(trailers.output.contains("x-trailer: done"), "\(trailers.output)")
    }

    @Test(.enabled(if: NginxServer.isInstalled, "nginx is not installed"))
    func nginxEchoesThroughItsUpstream() async throws {
        try await withServer { h in
            h.server.route("POST", "/echo") { request in .ok(request.bodyText) }
            let directory = try TemporaryDirectory.make(prefix: "fiber-h2-echo")
            defer { try? FileManager.default.removeItem(atPath: directory) }
            try "echoed over h2c".write(toFile: directory + "/body", atomically: true, encoding: .utf8)
            let nginx = try await NginxServer.startHTTP2(certificates: nil, echoUpstream: h.server.port)
            let run = try? await Nghttp.run(["-v", "-d", directory + "/body", nginx.url("/echo")])
            let problems = await nginx.stop()
            #expect(problems.isEmpty, "\(problems)")
            #expect(run?.output.contains("echoed over h2c") == true, "\(run?.output ?? "nghttp did not start")")
        }
    }

    @Test(.enabled(if: NghttpdServer.isInstalled, "nghttpd is not installed"), arguments: [true, false])
    func nghttpdServesAndEchoes(tls: Bool) async throws {
        let certificates = try await TestCertificates.shared()
        let nghttpd = try await NghttpdServer.start(certificates: tls ? certificates : nil) { root in
            try "Hello, world!".write(toFile: root + "/hello", atomically: true, encoding: .utf8)
        }
        do {
            try await checkNghttpd(nghttpd)
        } catch {
            await nghttpd.stop()
            throw error
        }
        let stopped = await nghttpd.stop()
        #expect(stopped, "nghttpd ignored SIGTERM")
    }

    private func checkNghttpd(_ nghttpd: NghttpdServer) async throws {
        let hello = try await Nghttp.run(["-v", nghttpd.url("/hello")])
        #expect(hello.succeeded, "\(hello.output)\n\(nghttpd.log)")
        #expect(hello.output.contains("recv DATA frame <length=13, flags=0x01"))

        let directory = try TemporaryDirectory.make(prefix: "fiber-h2-echo")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try "upload".write(toFile: directory + "/body", atomically: true, encoding: .utf8)
        let echo = try await Nghttp.run(["-v", "-d", directory + "/body", nghttpd.url("/hello")])
        #expect(echo.output.contains("recv DATA frame <length=6, flags=0x01"), "\(echo.output)")
    }
}
