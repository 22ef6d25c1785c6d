/// Which day's feed a client looks at.
public enum Day: String, Sendable, CaseIterable, Hashable {
    case today, tomorrow
}

/// Which value an annotation's title shows.
public enum Field: String, Sendable, CaseIterable {
    case temperature, wind, precipitation
}

/// Unit system for titles and callouts: imperial (°F, mph) or metric (°C, km/h).
public enum Units: String, Sendable, CaseIterable {
    case imperial, metric
}

/// Wind speed unit; when absent it follows `Units` (mph for imperial, km/h for metric).
public enum WindUnit: String, Sendable, CaseIterable {
    case mph, kmh, knots
}

/// Language of titles, units and compass points.
public enum Locale: String, Sendable, CaseIterable {
    case en, sk
}

/// How a client wants its annotations presented. Carried from the viewport through the filter
/// to the formatter, so the formatter itself holds no per-client state.
public struct Presentation: Sendable, Equatable {
    public var field: Field = .temperature
    public var units: Units = .imperial
    public var windUnit: WindUnit? = nil
    public var locale: Locale = .en

    public init(field: Field = .temperature, units: Units = .imperial, windUnit: WindUnit? = nil, locale: Locale = .en) {
        self.field = field
        self.units = units
        self.windUnit = windUnit
        self.locale = locale
    }

    /// The wind unit in effect.
    public var effectiveWindUnit: WindUnit { windUnit ?? (units == .metric ? .kmh : .mph) }

    public init(from object: JSONObject, defaults: Presentation) throws(MessageError) {
        field = try object.optionalEnum("field", Field.self) ?? defaults.field
        units = try object.optionalEnum("units", Units.self) ?? defaults.units
        windUnit = try object.optionalEnum("windUnit", WindUnit.self) ?? defaults.windUnit
        locale = try object.optionalEnum("locale", Locale.self) ?? defaults.locale
    }

    public func write(to writer: inout JSONWriter) {
        writer.key("field"); writer.string(field.rawValue)
        writer.key("units"); writer.string(units.rawValue)
        writer.key("windUnit"); writer.string(effectiveWindUnit.rawValue)
        writer.key("locale"); writer.string(locale.rawValue)
    }
}
