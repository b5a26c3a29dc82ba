import FiberRuntime
import HTTPTypes

extension HTTPHeaders {
    /// Fiber's header fields for swift-http-types' `fields`, in their order, each
    /// repeated field kept (two `Set-Cookie` stay two fields), names spelled as given.
    /// Never fails: every field of `HTTPFields` is one Fiber can send.
    public init(_ fields: HTTPFields) {
        self.init()
        for field in fields { append(name: field.name.rawName, value: field.value) }
    }
}

extension HTTPFields {
    /// swift-http-types' fields for Fiber's `headers`, in their order, repeated fields
    /// kept, names spelled as given.
    ///
    /// `HTTPFields` holds only RFC 9110 fields, and its own initialisers rewrite a bad
    /// value (each invalid byte becomes a space); this one refuses it instead, so that
    /// what is converted is exactly what was there.
    ///
    /// - Throws: `HTTPTypesConversionError` `.invalidFieldName` for a name that is not
    ///   a token, `.invalidFieldValue` for a value with a control byte, DEL, or a space
    ///   or tab at either end; its `subject` is the field's name.
    public init(validating headers: HTTPHeaders) throws(HTTPTypesConversionError) {
        self.init()
        reserveCapacity(headers.count)
        for field in headers {
            guard let name = HTTPField.Name(field.name) else {
                throw HTTPTypesConversionError(.invalidFieldName, subject: field.name)
            }
            guard HTTPField.isValidValue(field.value) else {
                throw HTTPTypesConversionError(.invalidFieldValue, subject: field.name)
            }
            append(HTTPField(name: name, value: field.value))
        }
    }
}
