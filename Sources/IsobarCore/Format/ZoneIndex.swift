/// The formatter's fallback for a station whose feed names no time zone: the zone of the nearest
/// populated place of a GeoNames dump (the places stage's gazetteer file), found exactly as
/// `reverse` finds the place (great-circle distance over a ``NearestIndex``, ties to the smaller
/// geonameid).
///
/// Compact on purpose, since the formatter needs nothing else of the gazetteer: per place its
/// coordinate (in the grid), its geonameid and a 2-byte zone number; the ~400 zone names once.
/// For the 234,908 places of cities500 that is about 26 bytes a place, 6 MB (names, populations
/// and the name index, which the places stage holds, are not kept).
public struct ZoneIndex: Sendable {
    /// What loading found (places read, bad rows skipped).
    public let report: GeoNamesDump.Report
    /// Places kept: those with a zone the system's tz database knows.
    public var count: Int { ids.count }
    private let ids: [Int32]
    private let zoneOfPlace: [UInt16]
    private let zones: [LocalZone]
    private let nearest: NearestIndex

    /// Reads the dump in `bytes` (`file` names it in errors); places whose zone is empty or
    /// unknown here are left out.
    public init(dump bytes: UnsafeRawBufferPointer, file: String) throws(PlacesError) {
        var ids: [Int32] = []
        var zoneOfPlace: [UInt16] = []
        var coordinates: [Coordinate] = []
        var zones: [LocalZone] = []
        var numbers: [String: UInt16?] = [:]  // zone name -> its number, or nil when unknown
        report = try GeoNamesDump.read(bytes, file: file) { row in
            let name = String(decoding: row.timeZone, as: UTF8.self)
            let number: UInt16?
            if let known = numbers[name] {
                number = known
            } else {
                if zones.count < Int(UInt16.max), let zone = LocalZone(identifier: name) {
                    number = UInt16(zones.count)
                    zones.append(zone)
                } else {
                    number = nil
                }
                numbers[name] = number
            }
            guard let number else { return }
            ids.append(row.id)
            zoneOfPlace.append(number)
            coordinates.append(Coordinate(latitude: row.latitude, longitude: row.longitude))
        }
        self.ids = ids
        self.zoneOfPlace = zoneOfPlace
        self.zones = zones
        nearest = NearestIndex(grid: SpatialGrid(coordinates: coordinates, cellsPerDegree: 1))
    }

    /// The zone of the place nearest to `point`, or nil when the index holds no place.
    public func zone(near point: Coordinate) -> LocalZone? {
        let ids = self.ids
        guard let hit = nearest.nearest(to: point, precedes: { ids[Int($0)] < ids[Int($1)] }) else { return nil }
        return zones[Int(zoneOfPlace[Int(hit.index)])]
    }
}
