/// A comma-separated table read from bytes (RFC 4180: fields may be quoted with `"`, a quote
/// inside a quoted field is doubled, a quoted field may hold commas and line breaks; lines end
/// with LF or CRLF). Columns are found by name in a header line, so a source that adds, drops or
/// reorders columns is still read by name.
///
/// Lines before the header (the Aviation Weather Center's cache files once began with five
/// lines of status: `No errors`, `No warnings`, `12 ms`, `data source=metars`, `4512 results`)
/// are skipped: the header is the first line whose first field is `headerFirst`.
struct CSVTable {
    /// One data line: its fields and the line's text (the excerpt of an error).
    struct Row {
        let fields: [String]
        let excerpt: String
    }

    let header: [String]
    let rows: [Row]

    /// Reads `bytes`; nil when no line starts with the field `headerFirst` (not such a table).
    init?(_ bytes: [UInt8], headerFirst: String) {
        var lines = Self.lines(bytes)[...]
        while let first = lines.first, first.fields.first != headerFirst { lines = lines.dropFirst() }
        guard let headerLine = lines.first else { return nil }
        header = headerLine.fields
        // A blank line (the file's last newline, or one in the middle) is no record.
        rows = lines.dropFirst().filter { !($0.fields.count == 1 && $0.fields[0].isEmpty) }
    }

    /// The position of the first column named `name`, or nil.
    func column(_ name: String) -> Int? { header.firstIndex(of: name) }

    /// The positions of every column named `name` (the cache file repeats `sky_cover`).
    func columns(_ name: String) -> [Int] { header.indices.filter { header[$0] == name } }

    /// Splits the bytes into lines of fields, honouring quotes.
    static func lines(_ bytes: [UInt8]) -> [Row] {
        var rows: [Row] = []
        var fields: [String] = []
        var field: [UInt8] = []
        var inQuotes = false
        var lineStart = 0
        var index = 0
        func endLine(at end: Int) {
            fields.append(String(decoding: field, as: UTF8.self))
            rows.append(Row(fields: fields, excerpt: String(decoding: bytes[lineStart..<min(end, lineStart + 80)], as: UTF8.self)))
            fields = []
            field = []
        }
        while index < bytes.count {
            let byte = bytes[index]
            if inQuotes {
                if byte == UInt8(ascii: "\"") {
                    if index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "\"") {
                        field.append(byte)
                        index += 1
                    } else {
                        inQuotes = false
                    }
                } else {
                    field.append(byte)
                }
            } else if byte == UInt8(ascii: "\"") && field.isEmpty {
                inQuotes = true
            } else if byte == UInt8(ascii: ",") {
                fields.append(String(decoding: field, as: UTF8.self))
                field = []
            } else if byte == 0x0A {
                let end = index > lineStart && bytes[index - 1] == 0x0D ? index - 1 : index
                if field.last == 0x0D { field.removeLast() }
                endLine(at: end)
                lineStart = index + 1
            } else {
                field.append(byte)
            }
            index += 1
        }
        if lineStart < bytes.count { endLine(at: bytes.count) }
        return rows
    }

    /// A plain decimal number (`-3.5`, `10`, `29.92`), nil for anything else (`inf`, `0x1p3`,
    /// `1e5`, empty): the only numbers these tables hold.
    static func decimal(_ text: String) -> Double? {
        var digits = 0, dots = 0
        for (offset, byte) in text.utf8.enumerated() {
            if JSONScanner.isDigit(byte) { digits += 1 } else if byte == UInt8(ascii: ".") { dots += 1 } else if !(offset == 0 && (byte == UInt8(ascii: "-") || byte == UInt8(ascii: "+"))) { return nil }
        }
        guard digits > 0, dots <= 1, digits <= 30 else { return nil }
        return Double(text).map { $0 + 0.0 }
    }
}
