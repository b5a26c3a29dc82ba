import Configuration

/// Reads the keys under one prefix so that a key no provider has keeps Fiber's
/// default, and a key that is there but cannot be read throws.
///
/// `ConfigReader`'s plain accessors (`int(forKey:)`) return nil both for a key that
/// is absent and for one whose value has the wrong type, so a typo such as
/// `HTTP_MAX_CONNECTIONS_PER_HOST=sixty` would pass unnoticed. Each read here
/// asks the plain accessor first; when it answers nil, the `required…` accessor
/// tells the two apart: it throws "missing" for an absent key and the provider's
/// conversion error for a wrong one, which becomes a `FiberConfigurationError`
/// naming the key.
struct StrictConfigReader {
    /// The reader, scoped to `prefix`.
    let reader: ConfigReader
    /// The keys' spelling before each key read here, with its trailing dot (`"http.tls."`), for errors.
    let prefix: String
    /// Shared by a reader and the readers scoped from it.
    let presence: Presence

    /// Whether any key was found, so that a part none of whose keys is set keeps its default whole.
    /// Not `Sendable`: it lives in one initializer's call, on one thread.
    final class Presence {
        var found = false
    }

    init(_ reader: ConfigReader, prefix: String = "") {
        self.init(reader, prefix: prefix, presence: Presence())
    }

    private init(_ reader: ConfigReader, prefix: String, presence: Presence) {
        self.reader = reader
        self.prefix = prefix
        self.presence = presence
    }

    /// A reader of the keys under `key`, sharing this one's presence.
    func scoped(to key: String) -> StrictConfigReader {
        StrictConfigReader(reader.scoped(to: ConfigKey(key)), prefix: prefix + key + ".", presence: presence)
    }

    /// `key` spelled in full, as errors name it.
    func fullKey(_ key: String) -> String { prefix + key }

    /// An error naming `key` in full.
    func error(_ key: String, _ reason: String) -> FiberConfigurationError {
        FiberConfigurationError(key: fullKey(key), reason: reason)
    }

    /// An error naming the keys read here as a whole (`"http.tls"`), for a fault
    /// no single key explains; `"(root)"` for a reader without a prefix.
    func sectionError(_ reason: String) -> FiberConfigurationError {
        FiberConfigurationError(key: prefix.isEmpty ? "(root)" : String(prefix.dropLast()), reason: reason)
    }

    /// The value of `key` as `get` reads it; nil when no provider has the key.
    ///
    /// - Throws: `FiberConfigurationError` naming the key when a provider has it but
    ///   `require` cannot read it (a wrong type, a provider's failure); `expected`
    ///   says what it must be. A secret's provider error is left out of the reason.
    func value<Value>(_ key: String, expected: String, isSecret: Bool = false,
                      get: (ConfigReader, ConfigKey) -> Value?,
                      require: (ConfigReader, ConfigKey) throws -> Value) throws(FiberConfigurationError) -> Value? {
        let configKey = ConfigKey(key)
        if let value = get(reader, configKey) {
            presence.found = true
            return value
        }
        do {
            // Found now only if a reloading provider changed in between: take it.
            let value = try require(reader, configKey)
            presence.found = true
            return value
        } catch {
            if Self.isMissingValue(error) { return nil }
            presence.found = true
            throw self.error(key, "must be \(expected)" + (isSecret ? "" : " (\(error))"))
        }
    }

    /// Whether `error`, thrown by a `required…` accessor, says that no provider has
    /// the key: swift-configuration's `ConfigError.missingRequiredConfigValue`, which
    /// is not public, so it is known by its type's name and its text. (The tests
    /// read absent keys, so a change of either fails them rather than users.)
    static func isMissingValue(_ error: any Error) -> Bool {
        String(reflecting: type(of: error)) == "Configuration.ConfigError"
            && String(describing: error).hasPrefix("Missing required config value")
    }
}

extension StrictConfigReader {
    /// An integer.
    func int(_ key: String) throws(FiberConfigurationError) -> Int? {
        try value(key, expected: "an integer", get: { $0.int(forKey: $1) }, require: { try $0.requiredInt(forKey: $1) })
    }

    /// A Boolean (`true`/`false`; environment variables also take `yes`/`no`, `1`/`0`).
    func bool(_ key: String) throws(FiberConfigurationError) -> Bool? {
        try value(key, expected: "true or false", get: { $0.bool(forKey: $1) }, require: { try $0.requiredBool(forKey: $1) })
    }

    /// A string; a secret one is redacted by swift-configuration's access reporting.
    func string(_ key: String, isSecret: Bool = false) throws(FiberConfigurationError) -> String? {
        try value(key, expected: "a string", isSecret: isSecret,
                  get: { $0.string(forKey: $1, isSecret: isSecret) },
                  require: { try $0.requiredString(forKey: $1, isSecret: isSecret) })
    }

    /// An array of strings (an environment variable separates them with commas, by default).
    func stringArray(_ key: String) throws(FiberConfigurationError) -> [String]? {
        try value(key, expected: "an array of strings",
                  get: { $0.stringArray(forKey: $1) }, require: { try $0.requiredStringArray(forKey: $1) })
    }

    /// A number, written with or without a fraction: an integer is taken too,
    /// since `InMemoryProvider` keeps `5` and `5.0` apart where JSON and the environment do not.
    func number(_ key: String, expected: String = "a number") throws(FiberConfigurationError) -> Double? {
        if let whole = reader.int(forKey: ConfigKey(key)) {
            presence.found = true
            return Double(whole)
        }
        return try value(key, expected: expected, get: { $0.double(forKey: $1) }, require: { try $0.requiredDouble(forKey: $1) })
    }

    /// One of `words`, exactly as written there.
    func word<Value>(_ key: String, _ words: KeyValuePairs<String, Value>) throws(FiberConfigurationError) -> Value? {
        let choices = words.map { "\"\($0.key)\"" }.joined(separator: " or ")
        guard let text = try string(key) else { return nil }
        guard let match = words.first(where: { $0.key == text }) else {
            throw error(key, "must be \(choices), not \"\(text)\"")
        }
        return match.value
    }
}
