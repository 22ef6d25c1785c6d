/// One labelled value of a callout, report, place or favorite (`{"label":"Wind","value":"6.9 mph
/// from W (270°) →"}`): the display text in the client's locale and units, and the raw value
/// (`key`, `number`, `unit`) when the formatter gives it, for an app that lays out or charts it
/// itself.
public struct DetailLine: Sendable, Hashable, Codable {
    public var label: String
    public var value: String
    public var key: String?
    public var number: Double?
    public var unit: String?

    public init(label: String, value: String, key: String? = nil, number: Double? = nil, unit: String? = nil) {
        self.label = label
        self.value = value
        self.key = key
        self.number = number
        self.unit = unit
    }
}
