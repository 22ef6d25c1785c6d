import Foundation

/// Loading a gazetteer straight from its file, the way the places stage does: the file's bytes
/// (36 MB for cities500) are released once the rows are read, before the name index is sorted
/// (the load's largest step), so the two never add up in the process's peak memory.
extension Gazetteer {
    /// The gazetteer in the GeoNames dump at `path`, or nil when the file cannot be read.
    public static func load(file path: String) throws(PlacesError) -> Gazetteer? {
        var builder = Builder()
        guard let read = readRows(path, into: &builder) else { return nil }
        return try Gazetteer(builder: builder, report: read.get(), file: path)
    }

    /// Reads the rows of the file at `path` into `builder` (its columns reserved for the file's
    /// line count); nil when the file cannot be read. The file's bytes live only in here.
    private static func readRows(_ path: String, into builder: inout Builder) -> Result<GeoNamesDump.Report, PlacesError>? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        return data.withUnsafeBytes { bytes in
            builder.reserve(rows: lineCount(bytes))
            do throws(PlacesError) {
                return .success(try GeoNamesDump.read(bytes, file: path) { builder.add($0) })
            } catch {
                return .failure(error)
            }
        }
    }
}

/// The lines of `bytes` (a last line without a newline counted): an upper bound of its rows.
private func lineCount(_ bytes: UnsafeRawBufferPointer) -> Int {
    guard let base = bytes.baseAddress else { return 0 }
    var lines = 1, offset = 0
    while offset < bytes.count, let found = memchr(base + offset, 0x0A, bytes.count - offset) {
        lines += 1
        offset = UnsafeRawPointer(found) - base + 1
    }
    return lines
}

extension Gazetteer.Builder {
    /// Room for `rows` rows in every per-row column, so the columns never grow by doubling (and
    /// never hold twice their size while they copy).
    mutating func reserve(rows: Int) {
        ids.reserveCapacity(rows)
        latitudes.reserveCapacity(rows)
        longitudes.reserveCapacity(rows)
        populations.reserveCapacity(rows)
        countryCodes.reserveCapacity(rows)
        admin1.reserveCapacity(rows)
        zones.reserveCapacity(rows)
        nameStart.reserveCapacity(rows + 1)
    }
}
