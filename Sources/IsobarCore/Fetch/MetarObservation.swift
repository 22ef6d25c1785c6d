#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One METAR as the Aviation Weather Center decodes it, in the service's units (°C, knots,
/// statute miles, hPa), whichever of its forms it came from (the JSON of `/api/data/metar` or a
/// row of the cache CSV), and its mapping to the station model.
///
/// The mapping, written once for both forms:
/// - temperature and dew point °C -> °F; humidity from the two by the Magnus formula with
///   Alduchov and Eskridge's (1996) constants: RH = 100 · e^(17.625·Td/(243.04+Td)) /
///   e^(17.625·T/(243.04+T)); unknown unless both are known.
/// - wind: knots -> mph. A direction of `VRB` (variable) keeps the speed and has no direction; a
///   calm wind (`00000KT`: speed 0) has speed 0 and no direction (METAR writes north as 360, so
///   0 means "no direction"); gusts knots -> mph.
/// - visibility: statute miles; `10+` (or `6+`, what AWC writes for 9999 m) is its lower bound,
///   10 (or 6): the model holds one number and the report says "at least".
/// - pressure: the sea-level pressure when reported (`slp`), else the altimeter setting (QNH,
///   `altim`), hPa.
/// - cloud cover: the most covering layer, as the top of its okta range: SKC/CLR/NSC/NCD/CAVOK 0,
///   FEW 25 (2/8), SCT 50 (4/8), BKN 87.5 (7/8), OVC/OVX 100.
/// - precipType from the present weather: snow (SN, SG), sleet (PL, FZRA, FZDZ), rain (RA, DZ).
/// - summary: the raw report itself (`rawOb` / `raw_text`), what a pilot reads on the detail screen.
/// - observedAt: the observation time, so stale marking is real.
struct MetarObservation {
    enum Wind: Equatable {
        case degrees(Double)
        case variable
        case unknown
    }

    var id: String
    var name: String
    var latitude: Double
    var longitude: Double
    var observedAt: Double?
    var temperature: Double?
    var dewPoint: Double?
    var windDirection: Wind = .unknown
    var windSpeed: Double?
    var windGust: Double?
    var visibility: Double?
    var seaLevelPressure: Double?
    var altimeter: Double?
    var weather: String?
    var covers: [String] = []
    var raw: String?

    static let units = FeedUnits(temperature: .celsius, speed: .mph, distance: .miles)

    /// A visibility as AWC writes it: a number of statute miles, or `N+` (at least N).
    static func visibility(_ text: String) -> Double? {
        let trimmed = text.hasSuffix("+") ? String(text.dropLast()) : text
        guard let value = CSVTable.decimal(trimmed) else { return nil }
        return value
    }

    /// Percent relative humidity from °C temperature and dew point (Magnus, Alduchov-Eskridge).
    static func humidity(temperature t: Double, dewPoint td: Double) -> Double {
        let a = 17.625, b = 243.04
        return FeedUnits.rounded6(100 * exp(a * td / (b + td) - a * t / (b + t)))
    }

    static func cloudCover(_ covers: [String]) -> Double? {
        var most: Double?
        for cover in covers {
            let value: Double?
            switch cover {
            case "SKC", "CLR", "NSC", "NCD", "CAVOK": value = 0
            case "FEW": value = 25
            case "SCT": value = 50
            case "BKN": value = 87.5
            case "OVC", "OVX": value = 100
            default: value = nil
            }
            if let value { most = max(most ?? 0, value) }
        }
        return most
    }

    static func precipType(_ weather: String?) -> String? {
        guard let weather else { return nil }
        if weather.contains("SN") || weather.contains("SG") { return "snow" }
        if weather.contains("PL") || weather.contains("FZRA") || weather.contains("FZDZ") { return "sleet" }
        if weather.contains("RA") || weather.contains("DZ") { return "rain" }
        return nil
    }

    func station(warnings: inout [String]) throws(MessageError) -> Station {
        guard !id.isEmpty else { throw MessageError("missing station id") }
        guard id.utf8.count <= 256 else { throw MessageError("station id is longer than 256 bytes") }
        let coordinate = try FeedValues.coordinate(latitude: latitude, longitude: longitude)
        let units = Self.units
        var speed = windSpeed.map { UnitFactors.mph(knots: $0) }.map(FeedUnits.rounded6)
        speed = FeedValues.nonNegative(speed, "wind speed", warnings: &warnings)
        var direction: Double?
        if case .degrees(let degrees) = windDirection, !(degrees == 0 && (speed ?? 0) == 0) {
            direction = FeedValues.direction(degrees, "wind direction", warnings: &warnings)
        }
        var humidity: Double?
        if let temperature, let dewPoint {
            humidity = FeedValues.percent(Self.humidity(temperature: temperature, dewPoint: dewPoint), "humidity", warnings: &warnings)
        }
        let details = StationDetails(
            humidity: humidity,
            pressure: FeedValues.nonNegative(seaLevelPressure ?? altimeter, "pressure", warnings: &warnings),
            dewPoint: units.fahrenheit(dewPoint),
            visibility: FeedValues.nonNegative(visibility, "visibility", warnings: &warnings),
            windGust: FeedValues.nonNegative(windGust.map { FeedUnits.rounded6(UnitFactors.mph(knots: $0)) }, "wind gust", warnings: &warnings),
            cloudCover: Self.cloudCover(covers),
            summary: raw.flatMap { $0.isEmpty ? nil : $0 },
            precipType: Self.precipType(weather),
            observedAt: observedAt)
        return Station(id: id, name: name, coordinate: coordinate, temperature: units.fahrenheit(temperature),
                       windSpeed: speed, windDirection: direction, details: details)
    }
}
