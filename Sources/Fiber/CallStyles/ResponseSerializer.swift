import Foundation

/// Turns a response into a value: JSON into a model, the body into text, or a
/// format of your own. A serializer sees every response, whatever its status;
/// `RequestChain` has applied its validations (2xx by default) before.
///
/// ```swift
/// struct CSVSerializer: ResponseSerializer {
///     func serialize(_ response: FiberResponse) throws(FiberError) -> [[String]] {
///         response.text.split(separator: "\n").map { $0.split(separator: ",").map(String.init) }
///     }
/// }
/// let rows = try await fiber.chain(fiber.request(.get, "/report.csv")).response(using: CSVSerializer()).get()
/// ```
public protocol ResponseSerializer<SerializedObject>: Sendable {
    /// What the serializer makes.
    associatedtype SerializedObject: Sendable

    /// The value made from `response`.
    ///
    /// - Throws: `FiberError`; by convention `.decodingError` with the cause and the body
    ///   when the bytes are not what was expected (an empty body where a value was:
    ///   `EmptyResponseBody`).
    func serialize(_ response: FiberResponse) throws(FiberError) -> SerializedObject
}

/// The body was empty where a value was expected: the `underlying` error of a
/// `FiberError.decodingError` (see `FiberError.isEmptyResponseBody`).
public struct EmptyResponseBody: Error, Sendable, Equatable, CustomStringConvertible {
    /// The status of the response whose body was empty.
    public let statusCode: Int

    /// An empty-body failure for a response of `statusCode`.
    public init(statusCode: Int) { self.statusCode = statusCode }

    public var description: String { "the \(statusCode) response has an empty body where a value was expected" }
}

/// JSON decoded into `Value` with the request's decoder: the given one, else the client's.
/// An empty body fails with `EmptyResponseBody`, except where `Value` is `Empty`.
public struct DecodableResponseSerializer<Value: Decodable & Sendable>: ResponseSerializer {
    /// The decoder, or nil for the client's.
    public let decoder: JSONDecoder?

    /// A serializer decoding with `decoder` (nil: the client's).
    public init(decoder: JSONDecoder? = nil) { self.decoder = decoder }

    /// - Throws: `FiberError.decodingError` with the decoder's error, or with `EmptyResponseBody`.
    public func serialize(_ response: FiberResponse) throws(FiberError) -> Value {
        if response.data.isEmpty {
            if let empty = Empty() as? Value { return empty }
            throw .decodingError(underlying: EmptyResponseBody(statusCode: response.statusCode), data: response.data)
        }
        return try response.decode(Value.self, decoder: decoder)
    }
}

/// The body as it came. Never fails (an empty body is empty `Data`).
public struct DataResponseSerializer: ResponseSerializer {
    /// The serializer.
    public init() {}

    public func serialize(_ response: FiberResponse) throws(FiberError) -> Data { response.data }
}

/// The body as text: UTF-8 unless the response's `Content-Type` names another charset
/// that Foundation knows, or `encoding` says otherwise.
public struct StringResponseSerializer: ResponseSerializer {
    /// The encoding to read with, or nil to follow the response's charset (UTF-8 when it has none).
    public let encoding: String.Encoding?

    /// A serializer reading with `encoding` (nil: the response's charset, else UTF-8).
    public init(encoding: String.Encoding? = nil) { self.encoding = encoding }

    /// - Throws: `FiberError.decodingError` when the bytes are not valid in the encoding.
    public func serialize(_ response: FiberResponse) throws(FiberError) -> String {
        let chosen = encoding ?? Self.charset(of: response) ?? .utf8
        guard let text = String(data: response.data, encoding: chosen) else {
            throw .decodingError(underlying: CocoaError(.fileReadInapplicableStringEncoding), data: response.data)
        }
        return text
    }

    /// The `charset` parameter of `Content-Type`, when it is one this reader knows.
    static func charset(of response: FiberResponse) -> String.Encoding? {
        guard let type = response.header("Content-Type") else { return nil }
        for parameter in type.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2, pair[0].lowercased() == "charset" else { continue }
            switch pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\"")).lowercased() {
            case "utf-8", "utf8": return .utf8
            case "iso-8859-1", "latin1": return .isoLatin1
            case "us-ascii", "ascii": return .ascii
            case "utf-16": return .utf16
            case "utf-16le": return .utf16LittleEndian
            case "utf-16be": return .utf16BigEndian
            case "windows-1252": return .windowsCP1252
            default: return nil
            }
        }
        return nil
    }
}

/// Nothing: for a request whose answer matters only by its status.
public struct VoidResponseSerializer: ResponseSerializer {
    /// The serializer.
    public init() {}

    public func serialize(_ response: FiberResponse) throws(FiberError) {}
}

/// A value for responses that have no body (`204 No Content`): decoding into `Empty`
/// accepts an empty body, or any JSON object.
public struct Empty: Codable, Sendable, Equatable {
    /// The empty value.
    public init() {}
}
