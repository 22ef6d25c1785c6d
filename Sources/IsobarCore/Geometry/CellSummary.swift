/// What a dense request needs to know of one non-empty grid cell without visiting its stations:
/// the sums of its stations' values and the bounding box of their actual coordinates.
///
/// The box, rather than the cell's nominal edges, decides whether the cell can be taken whole:
/// if every corner is inside the region, maps to the same cluster cell and unwraps the same way,
/// then so does every station in it (each of those tests is monotone in the coordinate), with no
/// special case for stations exactly on ±90°/±180° (the grid clamps them into its last row and
/// column) or for rounding at a cell edge.
struct CellSummary: Sendable {
    var sums = StationSums()
    var minLatitude = Double.infinity
    var maxLatitude = -Double.infinity
    var minLongitude = Double.infinity
    var maxLongitude = -Double.infinity

    /// Adds one station (longitude summed raw: a request applies its own unwrap).
    @inline(__always)
    mutating func add(_ station: UnsafePointer<Station>) {
        let latitude = station.pointee.coordinate.latitude
        let longitude = station.pointee.coordinate.longitude
        sums.add(station, latitude: latitude, longitude: longitude)
        minLatitude = min(minLatitude, latitude)
        maxLatitude = max(maxLatitude, latitude)
        minLongitude = min(minLongitude, longitude)
        maxLongitude = max(maxLongitude, longitude)
    }

    /// True when every station of the cell is inside `region`.
    @inline(__always)
    func isInside(_ region: Region) -> Bool {
        guard minLatitude >= region.minLatitude && maxLatitude <= region.maxLatitude else { return false }
        if region.allLongitudes { return true }
        if region.longitudes.contains(minLongitude) && region.longitudes.contains(maxLongitude) { return true }
        guard let wrapped = region.wrappedLongitudes else { return false }
        return wrapped.contains(minLongitude) && wrapped.contains(maxLongitude)
    }
}
