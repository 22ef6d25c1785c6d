#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Great-circle geometry on a sphere of the WGS-84 mean radius: the distance and the initial
/// bearing that `nearest` answers with, and the haversine term that the search compares.
///
/// Distances are compared through the haversine term `h = sin²(Δφ/2) + cos φ1 cos φ2 sin²(Δλ/2)`,
/// which grows with the distance and is periodic in Δλ: no special case at the 180° meridian.
public enum GreatCircle {
    /// The WGS-84 mean radius (IUGG R1), in kilometres.
    public static let earthRadiusKm = 6371.0088

    @inline(__always) static func radians(_ degrees: Double) -> Double { degrees * .pi / 180 }

    /// The haversine term between two points (0 for the same point, 1 for antipodes).
    @inline(__always)
    public static func haversine(_ a: Coordinate, _ b: Coordinate) -> Double {
        haversine(latitude1: a.latitude, longitude1: a.longitude, cosLatitude1: cos(radians(a.latitude)),
                  latitude2: b.latitude, longitude2: b.longitude)
    }

    @inline(__always)
    static func haversine(latitude1: Double, longitude1: Double, cosLatitude1: Double, latitude2: Double, longitude2: Double) -> Double {
        let dLat = sin(radians(latitude2 - latitude1) / 2)
        let dLon = sin(radians(longitude2 - longitude1) / 2)
        return min(1, dLat * dLat + cosLatitude1 * cos(radians(latitude2)) * dLon * dLon)
    }

    /// The central angle, in radians, of a haversine term.
    @inline(__always)
    public static func angle(haversine h: Double) -> Double { 2 * asin(min(1, max(0, h).squareRoot())) }

    /// The great-circle distance in kilometres.
    public static func distanceKm(_ a: Coordinate, _ b: Coordinate) -> Double {
        angle(haversine: haversine(a, b)) * earthRadiusKm
    }

    /// The initial bearing from `a` towards `b`, degrees clockwise from north in [0, 360).
    /// At a pole every way is one way: 180 from the North Pole, 0 from the South Pole; 0 when the
    /// points are the same.
    public static func bearing(from a: Coordinate, to b: Coordinate) -> Double {
        if a.latitude == 90 { return 180 }
        if a.latitude == -90 { return 0 }
        if a == b { return 0 }
        let φ1 = radians(a.latitude), φ2 = radians(b.latitude), Δλ = radians(b.longitude - a.longitude)
        let y = sin(Δλ) * cos(φ2)
        let x = cos(φ1) * sin(φ2) - sin(φ1) * cos(φ2) * cos(Δλ)
        if x == 0 && y == 0 { return 0 }
        let degrees = atan2(y, x) * 180 / .pi
        // A tiny negative angle plus 360 rounds to exactly 360, which is outside [0, 360): north.
        let bearing = degrees < 0 ? degrees + 360 : degrees
        return bearing >= 360 ? 0 : bearing
    }

    /// The unit vector of a coordinate (x towards 0°N 0°E, z towards the North Pole).
    @inline(__always)
    static func vector(latitude: Double, longitude: Double) -> (Double, Double, Double) {
        let φ = radians(latitude), λ = radians(longitude)
        return (cos(φ) * cos(λ), cos(φ) * sin(λ), sin(φ))
    }

    /// The angle between two unit vectors, accurate for small and large angles alike.
    @inline(__always)
    static func angle(_ a: (Double, Double, Double), _ b: (Double, Double, Double)) -> Double {
        let cx = a.1 * b.2 - a.2 * b.1, cy = a.2 * b.0 - a.0 * b.2, cz = a.0 * b.1 - a.1 * b.0
        let dot = a.0 * b.0 + a.1 * b.1 + a.2 * b.2
        return atan2((cx * cx + cy * cy + cz * cz).squareRoot(), dot)
    }
}
