/// Headers encode as an array of `{"name": …, "value": …}` objects, so that their
/// order and repeated fields survive a round trip (a JSON object would keep neither).
extension HTTPHeaders: Codable {
    /// Decodes the array of fields `encode(to:)` writes, in order.
    ///
    /// - Throws: `DecodingError` when the value is not such an array.
    public init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        self.init()
        while !container.isAtEnd {
            let field = try container.decode(Field.self)
            append(name: field.name, value: field.value)
        }
    }

    /// Encodes the fields as an array, in order.
    ///
    /// - Throws: what the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        for field in self { try container.encode(field) }
    }
}
