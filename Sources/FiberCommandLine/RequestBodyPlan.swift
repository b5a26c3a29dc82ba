import Fiber
import FiberRuntime
import Foundation

/// The body a request command sends, decided from `--body`, `--form` and the
/// items: a raw body (text, or a file streamed from disk), a form (URL-encoded,
/// or `multipart/form-data` when files are given), or the JSON object of the fields.
struct RequestBodyPlan {
    /// What is sent; nil for no body.
    var body: HTTPRequestBody?
    /// Its media type, when the command chooses one (a raw body has none).
    var contentType: String?
    /// How `--curl` shows it.
    var shown: CurlCommand.Body?
    /// Whether the body is the JSON object of the fields (the answer is then asked for as JSON).
    var isJSON = false

    /// The body for `options` and `items`.
    ///
    /// - Throws: `CommandLineError` for a file that cannot be read, a raw body
    ///   beside file items, or raw JSON fields (`name:=json`) in a form.
    init(options: RequestOptions, items: RequestItems) throws {
        if let raw = options.body {
            guard items.files.isEmpty, !options.form else {
                throw CommandLineError("--body cannot be sent with --form or name@file items")
            }
            // `--body @path` streams the file (never whole into memory); other bodies are bytes.
            if raw.hasPrefix("@") {
                let path = String(raw.dropFirst())
                try Self.requireReadable(path, "the body file")
                (body, shown) = (.file(path: path), .file(path))
            } else {
                (body, shown) = (.bytes(Array(raw.utf8)), .bytes(Data(raw.utf8)))
            }
            return
        }
        if options.form || !items.files.isEmpty {
            guard !items.hasRawJSONFields else { throw CommandLineError("a form cannot carry name:=json fields; use name=value") }
            if items.files.isEmpty {
                let encoded = FormURLEncoding.encode(items.textFields.map { URLFormItem(name: $0.name, value: $0.value) })
                (body, shown, contentType) = (.bytes(Array(encoded.utf8)), .bytes(Data(encoded.utf8)), FormURLEncoding.contentType)
                return
            }
            var form = MultipartForm()
            for field in items.textFields { form.append(field.value, withName: field.name) }
            for file in items.files {
                try Self.requireReadable(file.path, "the file of \(file.name)")
                form.appendFile(atPath: file.path, withName: file.name)
            }
            let encoded = try form.encoded()
            // curl could only be shown the parts as -F items; the body is the program's own stream.
            (body, contentType, shown) = (encoded.body, encoded.contentType, .standardInput)
            return
        }
        if let json = items.jsonBody {
            (body, shown, contentType, isJSON) = (.bytes(Array(json.utf8)), .bytes(Data(json.utf8)), "application/json", true)
        }
    }

    private static func requireReadable(_ path: String, _ what: String) throws {
        guard FileManager.default.isReadableFile(atPath: path) else { throw CommandLineError("cannot read \(what), \(path)") }
    }
}
