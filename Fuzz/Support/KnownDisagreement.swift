import IsobarCore

/// Where the project's scanner and Foundation's `JSONSerialization` disagree on purpose or
/// because Foundation is lenient; each case is listed in Fuzz/README.md ("Known disagreements").
/// Any other disagreement stops the fuzzer.
enum KnownDisagreement {
    /// Rejections the scanner makes on purpose (PROTOCOL.md): Foundation reads these.
    static let deliberate = ["duplicate key", "nesting deeper than", "outside a double's range"]

    /// Why Foundation may read `bytes` although the scanner refused them with `error`, or nil when
    /// it may not.
    static func foundationReads(_ bytes: [UInt8], rejectedWith error: JSONError) -> String? {
        if let reason = deliberate.first(where: { error.message.contains($0) }) { return reason }
        // Foundation reads UTF-16 and UTF-32 (told by a byte-order mark or by zero bytes among
        // the first four) and skips a UTF-8 BOM; the protocol is UTF-8 without a BOM (the line
        // splitter drops a BOM before the scanner sees the line).
        let head = bytes.prefix(4)
        if head.contains(0) || head.starts(with: [0xFE, 0xFF]) || head.starts(with: [0xFF, 0xFE]) || head.starts(with: [0xEF, 0xBB, 0xBF]) {
            return "another encoding or a byte-order mark"
        }
        // Foundation accepts a trailing comma before `]` or `}` (`[1,]`, `{"a":1,}`): not JSON.
        if error.offset < bytes.count, bytes[error.offset] == UInt8(ascii: "]") || bytes[error.offset] == UInt8(ascii: "}"),
           bytes[..<error.offset].last(where: { !isWhitespace($0) }) == UInt8(ascii: ",") {
            return "trailing comma"
        }
        return nil
    }

    /// Why Foundation may refuse `bytes` although the scanner accepted them, or nil.
    static func foundationRefuses(_ bytes: [UInt8]) -> String? {
        nil
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }
}
