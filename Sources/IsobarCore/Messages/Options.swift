/// Which day's feed a client looks at.
public enum Day: String, Sendable, CaseIterable, Hashable {
    case today, tomorrow
}

/// Which value an annotation's title shows: `conditions` is the weather icon's word (and the icon).
public enum Field: String, Sendable, CaseIterable {
    case temperature, wind, precipitation, conditions
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

/// How a client asked for its annotations to be presented. Only what the client said is kept
/// (nil = "use the default"), and it travels from the viewport through the filter to the
/// formatter, which owns the defaults (`isobar format --units metric`) and holds no per-client state.
public struct Presentation: Sendable, Equatable {
    public var field: Field?
    public var units: Units?
    public var windUnit: WindUnit?
    public var locale: Locale?

    public init(field: Field? = nil, units: Units? = nil, windUnit: WindUnit? = nil, locale: Locale? = nil) {
        self.field = field
        self.units = units
        self.windUnit = windUnit
        self.locale = locale
    }

    public init(from object: JSONObject) throws(MessageError) {
        field = try object.optionalEnum("field", Field.self)
        units = try object.optionalEnum("units", Units.self)
        windUnit = try object.optionalEnum("windUnit", WindUnit.self)
        locale = try object.optionalEnum("locale", Locale.self)
    }

    /// Writes the keys the client set (none for defaults).
    public func write(to writer: inout JSONWriter) {
        if let field { writer.key("field"); writer.string(field.rawValue) }
        if let units { writer.key("units"); writer.string(units.rawValue) }
        if let windUnit { writer.key("windUnit"); writer.string(windUnit.rawValue) }
        if let locale { writer.key("locale"); writer.string(locale.rawValue) }
    }

    /// Fills what the client left unset from `defaults`.
    public func resolved(_ defaults: ResolvedPresentation) -> ResolvedPresentation {
        let units = self.units ?? defaults.units
        return ResolvedPresentation(
            field: field ?? defaults.field,
            units: units,
            windUnit: windUnit ?? (self.units != nil ? (units == .metric ? .kmh : .mph) : defaults.windUnit),
            locale: locale ?? defaults.locale)
    }
}

/// A presentation with every choice made.
public struct ResolvedPresentation: Sendable, Equatable {
    public var field: Field
    public var units: Units
    public var windUnit: WindUnit
    public var locale: Locale

    public init(field: Field = .temperature, units: Units = .imperial, windUnit: WindUnit? = nil, locale: Locale = .en) {
        self.field = field
        self.units = units
        self.windUnit = windUnit ?? (units == .metric ? .kmh : .mph)
        self.locale = locale
    }

    /// Reads the four keys an answer to a client carries; any left out takes the defaults.
    public init(from object: JSONObject) throws(MessageError) {
        self = try Presentation(from: object).resolved(ResolvedPresentation())
    }

    /// Writes all four keys (`field`, `units`, `windUnit`, `locale`), as an answer to a client does.
    public func write(to writer: inout JSONWriter) {
        writer.key("field"); writer.string(field.rawValue)
        writer.key("units"); writer.string(units.rawValue)
        writer.key("windUnit"); writer.string(windUnit.rawValue)
        writer.key("locale"); writer.string(locale.rawValue)
    }
}
