import ArgumentParser

/// The options every request command takes: `fiber get|head|post|put|patch|delete URL [items]`.
public struct RequestOptions: ParsableArguments, Sendable {
    @Argument(help: "The URL (http:// or https://).")
    public var url: String

    @Argument(help: "Header:value, name==query, name=string (JSON body field), name:=json (raw JSON field), name@path (a file, multipart).")
    public var items: [String] = []

    @Option(help: "A raw request body (instead of JSON fields); @path reads a file.")
    public var body: String?

    @Flag(help: "Send the name=value fields as a form (application/x-www-form-urlencoded; multipart/form-data with name@path files).")
    public var form = false

    @Flag(name: .shortAndLong, help: "Also print the request and the timing breakdown (DNS, connect, TLS, first byte, total).")
    public var verbose = false

    @Flag(help: "Print the equivalent curl command (to standard error) before sending.")
    public var curl = false

    @Option(name: .shortAndLong, help: "Download the body into this file, with a progress bar.")
    public var output: String?

    @Flag(name: .customLong("continue"), help: "With --output: resume a partial file with a Range request.")
    public var resume = false

    @OptionGroup public var tls: TLSOptions

    @OptionGroup public var proxy: ProxyOptions

    @Option(help: "Seconds for the whole request (default 30).")
    public var timeout: Double = 30

    @Flag(help: "Do not follow redirects: print the 3xx response as it came.")
    public var noFollow = false

    @Flag(help: "Print one JSON object with the status, headers and timings instead of the body.")
    public var jsonOutput = false

    @Flag(help: "Exit 0 even for a 4xx or 5xx status (by default they exit 4 or 5).")
    public var ignoreStatus = false

    @Option(help: "An HTTP cache in this SQLite file, shared by every fiber process that names it (RFC 9111 rules).")
    public var cache: String?

    public init() {}
}

/// A request command for one HTTP method.
public protocol RequestCommand: AsyncParsableCommand {
    /// The HTTP method it sends.
    static var method: String { get }
    /// Its options.
    var options: RequestOptions { get }
}

extension RequestCommand {
    /// Sends the request; a failure of the exchange exits with its status in
    /// `FiberExitCode` after one line on standard error.
    public mutating func run() async throws {
        let options = options
        let status = try await FiberExitCode.exiting(on: CommandOutput.current) {
            try await RequestRunner(method: Self.method, options: options).run()
        }
        guard !options.ignoreStatus, let code = FiberExitCode.forStatus(status) else { return }
        throw ExitCode(code.rawValue)
    }
}

/// `fiber get URL [items]`.
public struct Get: RequestCommand {
    public static let configuration = CommandConfiguration(commandName: "get", abstract: "Send a GET request.")
    public static let method = "GET"
    @OptionGroup public var options: RequestOptions
    public init() {}
}

/// `fiber head URL [items]`.
public struct Head: RequestCommand {
    public static let configuration = CommandConfiguration(commandName: "head", abstract: "Send a HEAD request.")
    public static let method = "HEAD"
    @OptionGroup public var options: RequestOptions
    public init() {}
}

/// `fiber post URL [items]`.
public struct Post: RequestCommand {
    public static let configuration = CommandConfiguration(commandName: "post", abstract: "Send a POST request.")
    public static let method = "POST"
    @OptionGroup public var options: RequestOptions
    public init() {}
}

/// `fiber put URL [items]`.
public struct Put: RequestCommand {
    public static let configuration = CommandConfiguration(commandName: "put", abstract: "Send a PUT request.")
    public static let method = "PUT"
    @OptionGroup public var options: RequestOptions
    public init() {}
}

/// `fiber patch URL [items]`.
public struct Patch: RequestCommand {
    public static let configuration = CommandConfiguration(commandName: "patch", abstract: "Send a PATCH request.")
    public static let method = "PATCH"
    @OptionGroup public var options: RequestOptions
    public init() {}
}

/// `fiber delete URL [items]`.
public struct Delete: RequestCommand {
    public static let configuration = CommandConfiguration(commandName: "delete", abstract: "Send a DELETE request.")
    public static let method = "DELETE"
    @OptionGroup public var options: RequestOptions
    public init() {}
}
