/// Reverse geocoding: the nearest place to a point, exactly (great-circle distance over the
/// station search's ``NearestIndex``, so exact across the 180° meridian and at the poles; ties go
/// to the smaller geonameid).
extension Gazetteer {
    /// The default radius of a `reverse` request, in kilometres.
    public static let defaultRadiusKm = 100.0
    /// The largest radius: half the Earth's circumference (every point is within it).
    public static let maxRadiusKm = 20_016.0

    /// The nearest place to a point and where it lies from there.
    public struct Nearby: Sendable, Equatable {
        public var place: Place
        /// Great-circle distance from the point, in kilometres.
        public var distanceKm: Double
        /// Initial bearing from the point to the place, degrees clockwise from north in [0, 360).
        public var bearing: Double
    }

    /// The row nearest to `point` and its haversine term, or nil for an empty gazetteer.
    func nearestRow(to point: Coordinate) -> (row: Int, haversine: Double)? {
        let ids = self.ids
        guard let hit = nearest.nearest(to: point, precedes: { ids[Int($0)] < ids[Int($1)] }) else { return nil }
        return (Int(hit.index), hit.haversine)
    }

    /// The nearest place to `point` if it is within `radiusKm` (inclusive), else nil ("no place
    /// nearby").
    public func reverse(_ point: Coordinate, radiusKm: Double = Gazetteer.defaultRadiusKm) -> Nearby? {
        guard let (row, _) = nearestRow(to: point) else { return nil }
        let place = place(row: row)
        let distance = GreatCircle.distanceKm(point, place.coordinate)
        guard distance <= radiusKm else { return nil }
        return Nearby(place: place, distanceKm: distance, bearing: GreatCircle.bearing(from: point, to: place.coordinate))
    }
}
