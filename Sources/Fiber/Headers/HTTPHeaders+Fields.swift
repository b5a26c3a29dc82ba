import FiberRuntime

/// One header field: a name and a value, with constructors for the common ones
/// (`.contentType("application/json")`, `.authorization(bearerToken:)`).
public typealias HTTPHeader = HTTPHeaders.Field

extension HTTPHeaders {
    /// Headers from `fields`; of several with the same name (any case) the last stays.
    public init(_ fields: [HTTPHeader]) {
        self.init()
        for field in fields { add(field) }
    }

    /// Headers from a dictionary, in the order of their names (a dictionary has none of its own).
    public init(_ dictionary: [String: String]) {
        self.init()
        for name in dictionary.keys.sorted() { append(name: name, value: dictionary[name]!) }
    }

    /// Sets `field`: replaces every field of its name (any case), or adds it.
    public mutating func add(_ field: HTTPHeader) { add(name: field.name, value: field.value) }

    /// Sets `field`, as `add(_:)` does.
    public mutating func update(_ field: HTTPHeader) { add(field) }

    /// Sets `name` to `value`, as `add(name:value:)` does.
    public mutating func update(name: String, value: String) { add(name: name, value: value) }

    /// The fields as a dictionary keyed by name as first written; a name given several
    /// times has its values joined with `", "`, as HTTP allows for list fields. (A
    /// `Set-Cookie` does not survive joining: read those with `values(name:)`.)
    public var dictionary: [String: String] {
        var result: [String: String] = [:]
        var keys: [String: String] = [:]  // lowercased name → the name as first written
        for field in self {
            let folded = field.name.lowercased()
            if let key = keys[folded] {
                result[key]! += ", " + field.value
            } else {
                keys[folded] = field.name
                result[field.name] = field.value
            }
        }
        return result
    }

    /// `Accept-Language` from the process's preferred languages and a `User-Agent`
    /// naming Fiber and the platform; `Accept-Encoding` is left to the client,
    /// which asks for the encodings it can decode.
    public static var `default`: HTTPHeaders {
        var headers = HTTPHeaders()
        if let language = HTTPHeader.defaultAcceptLanguage { headers.add(language) }
        headers.add(.userAgent())
        return headers
    }
}
