/// One forecast point of the cache: a coordinate rounded to 0.1° (about 11 km, the spacing of the
/// global models Open-Meteo blends; its regional models are finer, but a detail screen's
/// forecast does not change within a tenth of a degree). Every station and place inside one cell
/// shares one forecast, fetched once per refresh whatever the number of clients asking.
public struct ForecastCell: Sendable, Hashable, CustomStringConvertible {
    /// Tenths of a degree.
    public let latitudeTenths: Int
    public let longitudeTenths: Int

    /// The cell holding `coordinate` (each axis rounded half away from zero).
    public init(_ coordinate: Coordinate) {
        latitudeTenths = Int((coordinate.latitude * 10).rounded())
        longitudeTenths = Int((coordinate.longitude * 10).rounded())
    }

    /// Reads an `outlook` or `forecast` line's `latitude`/`longitude`, which must name a cell
    /// exactly (one decimal at most), so a line is never silently moved to another cell.
    public init(from object: JSONObject) throws(MessageError) {
        let coordinate = try Coordinate(from: object)
        self.init(coordinate)
        guard self.latitude == coordinate.latitude, self.longitude == coordinate.longitude else {
            throw MessageError("latitude and longitude must name a 0.1° forecast cell (one decimal), got \(coordinate.latitude),\(coordinate.longitude)",
                               code: .outOfRange)
        }
    }

    public var latitude: Double { Double(latitudeTenths) / 10 }
    public var longitude: Double { Double(longitudeTenths) / 10 }

    public var description: String { "\(latitude),\(longitude)" }

    /// Writes `"latitude":…,"longitude":…` as members of the object being written.
    public func writeMembers(to out: inout JSONWriter) {
        out.key("latitude"); out.number(latitude)
        out.key("longitude"); out.number(longitude)
    }
}
