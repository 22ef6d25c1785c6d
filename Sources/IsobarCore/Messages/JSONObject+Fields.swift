/// Typed access to message fields with errors that name the field and say what was expected.
extension JSONObject {
    public func requireString(_ key: StaticString) throws(MessageError) -> String {
        guard let field = field(key) else { throw MessageError("missing required field \"\(key)\"", code: .fieldMissing) }
        guard let value = string(field) else { throw MessageError("field \"\(key)\" must be a string, found \(field.kind)", code: .fieldType) }
        return value
    }

    /// A string that must be present and not empty (ids, client names).
    public func requireName(_ key: StaticString, maxLength: Int = 256) throws(MessageError) -> String {
        let value = try requireString(key)
        guard !value.isEmpty else { throw MessageError("field \"\(key)\" must not be empty", code: .outOfRange) }
        guard value.utf8.count <= maxLength else { throw MessageError("field \"\(key)\" is longer than \(maxLength) bytes", code: .outOfRange) }
        return value
    }

    /// nil when missing or null.
    public func optionalString(_ key: StaticString) throws(MessageError) -> String? {
        guard let field = field(key), field.kind != .null else { return nil }
        guard let value = string(field) else { throw MessageError("field \"\(key)\" must be a string, found \(field.kind)", code: .fieldType) }
        return value
    }

    public func requireNumber(_ key: StaticString) throws(MessageError) -> Double {
        guard let field = field(key) else { throw MessageError("missing required field \"\(key)\"", code: .fieldMissing) }
        return try finiteNumber(field, key)
    }

    /// nil when missing or null. Negative zero reads as zero.
    public func optionalNumber(_ key: StaticString) throws(MessageError) -> Double? {
        guard let field = field(key), field.kind != .null else { return nil }
        return try finiteNumber(field, key)
    }

    public func optionalInt(_ key: StaticString) throws(MessageError) -> Int? {
        guard let value = try optionalNumber(key) else { return nil }
        guard value == value.rounded(), abs(value) < 9e15 else { throw MessageError("field \"\(key)\" must be an integer", code: .fieldType) }
        return Int(value)
    }

    public func optionalBool(_ key: StaticString) throws(MessageError) -> Bool? {
        guard let field = field(key), field.kind != .null else { return nil }
        guard let value = bool(field) else { throw MessageError("field \"\(key)\" must be true or false, found \(field.kind)", code: .fieldType) }
        return value
    }

    public func requireObject(_ key: StaticString) throws(MessageError) -> JSONObject {
        guard let field = field(key) else { throw MessageError("missing required field \"\(key)\"", code: .fieldMissing) }
        guard let value = object(field) else { throw MessageError("field \"\(key)\" must be an object, found \(field.kind)", code: .fieldType) }
        return value
    }

    /// A string field restricted to the cases of `T`; nil when missing or null.
    public func optionalEnum<T: RawRepresentable>(_ key: StaticString, _ type: T.Type) throws(MessageError) -> T? where T.RawValue == String, T: CaseIterable {
        guard let raw = try optionalString(key) else { return nil }
        guard let value = T(rawValue: raw) else {
            let allowed = T.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
            throw MessageError("field \"\(key)\" must be one of \(allowed), found \"\(raw.prefix(40))\"", code: .outOfRange)
        }
        return value
    }

    private func finiteNumber(_ field: JSONField, _ key: StaticString) throws(MessageError) -> Double {
        guard let value = number(field) else {
            if field.kind == .string {
                let text = string(field) ?? ""
                throw MessageError("field \"\(key)\" must be a number, found the string \"\(text.prefix(20))\"", code: .fieldType)
            }
            throw MessageError("field \"\(key)\" must be a number, found \(field.kind)", code: .fieldType)
        }
        guard value.isFinite else { throw MessageError("field \"\(key)\" is out of the range of a double", code: .outOfRange) }
        return value + 0.0  // -0 becomes 0
    }
}
