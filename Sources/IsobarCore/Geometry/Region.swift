/// A MapKit-style region: a center and a span, with the visibility rule of the client contract.
///
/// Visible means latitude within center ± latitudeDelta/2 (clamped to [-90, 90]) and longitude
/// within center ± longitudeDelta/2, both inclusive. Longitudes wrap at ±180 (a region centred
/// at 179°E sees 179°W), and a longitudeDelta of 360 or more sees every longitude.
public struct Region: Sendable, Equatable {
    public let center: Coordinate
    public let latitudeDelta: Double
    public let longitudeDelta: Double

    public let minLatitude: Double
    public let maxLatitude: Double
    /// The visible longitudes inside [-180, 180]: all of them when the region does not cross ±180,
    /// else the part that ends at 180 (the rest is `wrappedLongitudes`). -180...180 when every
    /// longitude is visible (`allLongitudes`). A region's longitudes are never more than these two
    /// intervals: its span is under 360° and it crosses ±180 at most once.
    public let longitudes: ClosedRange<Double>
    /// The part of the visible longitudes that starts at -180 when the region crosses ±180, else nil.
    public let wrappedLongitudes: ClosedRange<Double>?
    public let allLongitudes: Bool

    /// The visible longitudes as one or two closed intervals (`longitudes`, then `wrappedLongitudes`);
    /// empty when every longitude is visible (see `allLongitudes`).
    public var longitudeRanges: [ClosedRange<Double>] {
        if allLongitudes { return [] }
        return wrappedLongitudes.map { [longitudes, $0] } ?? [longitudes]
    }

    /// Rejects a non-positive span, a latitude span over 180° and centers out of range, with a
    /// message that says which.
    public init(center: Coordinate, latitudeDelta: Double, longitudeDelta: Double) throws(MessageError) {
        guard latitudeDelta.isFinite, longitudeDelta.isFinite else { throw MessageError("span must be finite", code: .outOfRange) }
        guard latitudeDelta > 0 else { throw MessageError("latitudeDelta \(latitudeDelta) must be greater than 0", code: .outOfRange) }
        guard latitudeDelta <= 180 else { throw MessageError("latitudeDelta \(latitudeDelta) is over 180", code: .outOfRange) }
        guard longitudeDelta > 0 else { throw MessageError("longitudeDelta \(longitudeDelta) must be greater than 0", code: .outOfRange) }
        guard (-90...90).contains(center.latitude), (-180...180).contains(center.longitude) else {
            throw MessageError("center \(center.latitude),\(center.longitude) is out of range", code: .outOfRange)
        }
        self.center = center
        self.latitudeDelta = latitudeDelta
        self.longitudeDelta = longitudeDelta
        minLatitude = max(-90, center.latitude - latitudeDelta / 2)
        maxLatitude = min(90, center.latitude + latitudeDelta / 2)
        let low = center.longitude - longitudeDelta / 2
        let high = center.longitude + longitudeDelta / 2
        // The longitudes up to 180 and those from -180 on, when the span crosses ±180 (once at most:
        // under 360°, and `center` within ±180).
        let (upTo180, from180): (ClosedRange<Double>, ClosedRange<Double>?) =
            longitudeDelta >= 360 ? (-180...180, nil)
            : low < -180 ? ((low + 360)...180, -180...high)
            : high > 180 ? (low...180, -180...(high - 360))
            : (low...high, nil)
        // Two parts that meet or overlap see every longitude.
        allLongitudes = longitudeDelta >= 360 || from180.map { $0.upperBound >= upTo180.lowerBound } ?? false
        longitudes = allLongitudes ? -180...180 : upTo180
        wrappedLongitudes = allLongitudes ? nil : from180
    }

    /// A region from any numbers, forced into range: latitude and center clamped, longitude wrapped,
    /// spans kept between a tiny positive value and the maximum. For interactive panning and zooming.
    public init(clampingCenter center: Coordinate, latitudeDelta: Double, longitudeDelta: Double) {
        var longitude = center.longitude.isFinite ? center.longitude.truncatingRemainder(dividingBy: 360) : 0
        if longitude > 180 { longitude -= 360 } else if longitude < -180 { longitude += 360 }
        let latitude = center.latitude.isFinite ? min(90, max(-90, center.latitude)) : 0
        let dlat = latitudeDelta.isFinite ? min(180, max(1e-6, latitudeDelta)) : 180
        let dlon = longitudeDelta.isFinite ? min(360, max(1e-6, longitudeDelta)) : 360
        do {
            try self.init(center: Coordinate(latitude: latitude, longitude: longitude), latitudeDelta: dlat, longitudeDelta: dlon)
        } catch {
            // Unreachable: every value above is in range. Fall back to the whole world.
            self = Region.world
        }
    }

    /// The whole world (every station visible).
    public static let world = Region(uncheckedCenter: Coordinate(latitude: 0, longitude: 0), latitudeDelta: 180, longitudeDelta: 360)

    /// The iOS app's initial region: 40°55'26.40"N 108°05'43.80"W, span 25° x 20° (85 of the onX stations).
    public static let initialMap = Region(uncheckedCenter: Coordinate(latitude: 40.924, longitude: -108.0955), latitudeDelta: 25, longitudeDelta: 20)

    private init(uncheckedCenter center: Coordinate, latitudeDelta: Double, longitudeDelta: Double) {
        self.center = center
        self.latitudeDelta = latitudeDelta
        self.longitudeDelta = longitudeDelta
        minLatitude = max(-90, center.latitude - latitudeDelta / 2)
        maxLatitude = min(90, center.latitude + latitudeDelta / 2)
        let low = center.longitude - longitudeDelta / 2
        let high = center.longitude + longitudeDelta / 2
        allLongitudes = longitudeDelta >= 360
        longitudes = allLongitudes ? -180...180 : low...high
        wrappedLongitudes = nil
    }

    @inline(__always) public func contains(latitude: Double, longitude: Double) -> Bool {
        guard latitude >= minLatitude && latitude <= maxLatitude else { return false }
        if allLongitudes { return true }
        return longitudes.contains(longitude) || wrappedLongitudes?.contains(longitude) == true
    }

    public func contains(_ coordinate: Coordinate) -> Bool {
        contains(latitude: coordinate.latitude, longitude: coordinate.longitude)
    }

    /// Parses `LAT,LON,DLAT,DLON` (the `--viewport` flag of the CLI).
    public init(parsing text: String) throws(MessageError) {
        let parts = text.split(separator: ",").map { Double($0.trimmingCharacters(in: " ")) }
        guard parts.count == 4, let lat = parts[0], let lon = parts[1], let dlat = parts[2], let dlon = parts[3] else {
            throw MessageError("viewport must be LAT,LON,DLAT,DLON (four numbers), got \"\(text)\"")
        }
        try self.init(center: Coordinate(latitude: lat, longitude: lon), latitudeDelta: dlat, longitudeDelta: dlon)
    }
}

extension Substring {
    fileprivate func trimmingCharacters(in set: Character) -> String {
        var s = self
        while s.first == set { s = s.dropFirst() }
        while s.last == set { s = s.dropLast() }
        return String(s)
    }
}
