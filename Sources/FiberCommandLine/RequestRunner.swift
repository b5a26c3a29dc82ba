import Fiber
import FiberRuntime
import FiberSQLite
import Foundation

/// Sends one request for a request command and prints the answer: status and
/// headers, then the body (JSON indented, coloured on a terminal); only the
/// body when standard output is not a terminal; into a file with `--output`.
struct RequestRunner {
    let method: String
    let options: RequestOptions
    let out = CommandOutput.current

    /// Sends the request; returns the final status.
    ///
    /// - Throws: `RequestItems.ParseError`, `CommandLineError`, `HTTPClientError`.
    func run() async throws -> Int {
        let items = try RequestItems(parsing: options.items)
        let url = items.url(appendingQueryTo: options.url)
        var headers = HTTPHeaders()
        let plan = try RequestBodyPlan(options: options, items: items)
        if let contentType = plan.contentType { headers.append(name: "Content-Type", value: contentType) }
        if !items.headers.contains(where: { $0.name.lowercased() == "accept" }) {
            headers.append(name: "Accept", value: plan.isJSON ? "application/json, */*;q=0.5" : "*/*")
        }
        for header in items.headers {
            if header.name.lowercased() == "content-type" { headers.remove(name: "Content-Type") }
            headers.append(name: header.name, value: header.value)
        }
        if options.curl {
            let shown = headers.map { (name: $0.name, value: $0.value) }
            out.error(CurlCommand.render(method: method, url: url, headers: shown, body: plan.shown, insecure: options.tls.insecure,
                                         proxy: options.proxy.curlValue) + "\n")
        }
        let request = try HTTPClientRequest(url: url, method: method, headers: headers, body: plan.body)
        if options.verbose {
            out.error("\(method) \(url)\n" + headers.map { "\($0.name): \($0.value)\n" }.joined() + "\n")
        }
        if let path = options.output {
            guard method == "GET", plan.body == nil, !options.jsonOutput else {
                throw CommandLineError("--output downloads with GET, without a body or --json-output")
            }
            return try await Download(out: out).run(configuration: try clientConfiguration(), url: url, headers: headers,
                                                    to: path, continuing: options.resume)
        }
        if let cache = options.cache {
            var cached = FiberRequest(url: url).method(HTTPMethod(rawValue: method)).headers(headers)
            if let body = plan.body { cached = cached.body(body, contentType: nil) }
            return try await runCached(cached, storagePath: cache)
        }
        let client = HTTPClient(configuration: try clientConfiguration())
        do {
            let response = try await client.execute(request)
            print(ShownResponse(response))
            await client.shutdown()
            return response.status
        } catch {
            await client.shutdown()
            throw error
        }
    }

    private func clientConfiguration() throws -> HTTPClient.Configuration {
        var configuration = HTTPClient.Configuration()
        configuration.requestTimeout = .milliseconds(Int64(options.timeout * 1000))
        configuration.tls = options.tls.applied(to: configuration.tls)
        configuration.proxy = options.proxy.configuration
        if options.noFollow { configuration.redirects = .never }
        return configuration
    }

    /// Sends `request` through a `CacheInterceptor` over the SQLite file at `storagePath`.
    private func runCached(_ request: FiberRequest, storagePath: String) async throws -> Int {
        let storage = try SQLiteCacheStorage(path: storagePath)
        if let damaged = storage.recoveredFrom { out.error("fiber: \(damaged); started an empty cache\n") }
        let transport = HTTPTransport(configuration: try clientConfiguration())
        let fiber = Fiber("") {
            $0.transport = transport
            $0.interceptors = [CacheInterceptor(storage: storage)]
        }
        do {
            let response = try await fiber.send(request)
            print(ShownResponse(response))
            await transport.shutdown()
            return response.statusCode
        } catch {
            await transport.shutdown()
            throw error
        }
    }

    private func print(_ response: ShownResponse) {
        if options.jsonOutput {
            out.print(response.jsonReport())
            return
        }
        let colors = out.colors
        if out.isTerminal || options.verbose {
            let statusLine = "HTTP/1.1 \(response.status) \(response.reason)"
            let painted = !colors ? statusLine : (response.status < 400 ? "\u{1B}[32;1m" : "\u{1B}[31;1m") + statusLine + "\u{1B}[0m"
            var head = painted + "\n"
            for header in response.headers {
                head += (colors ? "\u{1B}[36m\(header.name)\u{1B}[0m" : header.name) + ": \(header.value)\n"
            }
            if options.verbose, let timing = response.timing { head += "\n" + Self.describe(timing) + "\n" }
            let target = options.verbose && !out.isTerminal
            if target { out.error(head + "\n") } else { out.write(head + "\n") }
        }
        guard method != "HEAD", !response.body.isEmpty else { return }
        let text = String(validating: response.body, as: UTF8.self)
        if let text {
            let isJSON = response.headers["Content-Type"]?.lowercased().contains("json") ?? false
            if out.isTerminal || isJSON, let pretty = JSONPrettyPrinter(colors: colors).format(text), out.isTerminal {
                out.print(pretty)
            } else {
                out.write(text.hasSuffix("\n") || !out.isTerminal ? text : text + "\n")
            }
        } else if out.isTerminal {
            out.print("[\(response.body.count) bytes of binary data; use --output FILE to save them]")
        } else {
            out.write(String(decoding: response.body, as: UTF8.self))
        }
    }

    /// The timing breakdown, one phase a line.
    static func describe(_ timing: RequestTiming) -> String {
        func ms(_ d: Duration?) -> String {
            guard let d else { return "-" }
            return String(format: "%.3f ms", d.seconds * 1000)
        }
        return [
            "timing:", "  dns         \(ms(timing.dns))", "  connect     \(ms(timing.connect))", "  tls         \(ms(timing.tls))",
            "  first byte  \(ms(timing.firstByte))", "  total       \(ms(timing.total))",
            timing.reusedConnection ? "  (reused connection)" : "",
        ].filter { !$0.isEmpty }.joined(separator: "\n")
    }
}

/// What is printed of a response, from the runtime's client or from `Fiber`.
struct ShownResponse {
    let status: Int
    let reason: String
    let headers: HTTPHeaders
    let body: [UInt8]
    /// Where the time went; nil when the answer did not come from the network by itself.
    let timing: RequestTiming?

    init(_ response: HTTPClientResponse) {
        (status, reason, headers, body, timing) = (response.status, response.reason, response.headers, response.body,
                                                   response.timing)
    }

    init(_ response: FiberResponse) {
        (status, reason, headers, body, timing) = (response.statusCode, HTTPStatusText.phrase(for: response.statusCode),
                                                   response.headers, Array(response.data), nil)
    }
}

/// A mistake in how a command was called.
struct CommandLineError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
