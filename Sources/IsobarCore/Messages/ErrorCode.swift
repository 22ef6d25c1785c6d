/// The machine-readable kind of an `error` line (its `code`, beside the human `message`, whose
/// wording is not part of the contract): PROTOCOL.md, "Errors".
public enum ErrorCode: String, Sendable, CaseIterable {
    /// The line is not one JSON object (bad syntax, invalid UTF-8, NaN, duplicate keys, too deep).
    case notJSON = "not-json"
    /// The line is longer than the stage's limit; its bytes were skipped.
    case lineTooLong = "line-too-long"
    /// A required field is absent.
    case fieldMissing = "field-missing"
    /// A field has the wrong JSON type (a number as a string, an integer with a fraction, ...).
    case fieldType = "field-type"
    /// A field's value is outside its range or set (a latitude of 91, an empty name, an unknown
    /// enum value, a string too long, a number beyond a double).
    case outOfRange = "out-of-range"
    /// Anything else: a well-formed message the stage cannot act on (an unknown station, a
    /// select before any viewport, an incomplete snapshot, a store that cannot be written, ...).
    case invalid = "invalid"
}
