/// Why a gazetteer could not be loaded: the whole file is refused (a bad row alone is skipped and
/// counted, see ``GeoNamesDump/Report``). Each case names the file, and the line where there is one.
public enum PlacesError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file is not in GeoNames' dump layout (checked on its first data line).
    case wrongFormat(file: String, line: Int, reason: String)
    /// The file holds no usable place at all (empty, or every row bad).
    case noPlaces(file: String, skipped: Int)
    /// More places than the gazetteer's 32-bit tables hold.
    case tooManyPlaces(file: String, line: Int)

    public var description: String {
        switch self {
        case let .wrongFormat(file, line, reason):
            "\(file):\(line): not a GeoNames dump (\(reason))"
        case let .noPlaces(file, skipped):
            "\(file): no places loaded (\(skipped) bad rows)"
        case let .tooManyPlaces(file, line):
            "\(file):\(line): more places than a gazetteer holds (\(Int32.max))"
        }
    }
}
