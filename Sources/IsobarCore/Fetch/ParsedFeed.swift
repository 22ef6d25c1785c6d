/// What parsing one feed body gives, whatever its format: the stations in feed order, the
/// data-quality warnings (a value clamped or dropped, the station kept) and one error per rejected
/// record.
public struct ParsedFeed: Sendable, Equatable {
    public var stations: [Station] = []
    public var warnings: [WarningMessage] = []
    public var errors: [ErrorMessage] = []

    public init() {}
}
