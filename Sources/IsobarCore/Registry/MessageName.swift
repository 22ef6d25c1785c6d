/// The standard table's type names, typed: what code dispatches on (`switch MessageName(rawValue:
/// type)`), so a handler names a type the compiler knows rather than a string literal of its own.
/// The cases are ``MessageTypes/standard``'s rows, in table order (`MessageTypesTests` fails if
/// they differ): adding a row adds its case here.
public enum MessageName: String, CaseIterable, Sendable {
    case station, snapshot
    case viewport, select, resync, lease, leave, nearest, search, favorite, detail, spot
    case forecast
    case geocode, reverse, weather, bookmark
    case outlook
    case visible, selection, closest, matches, pinned, particulars, ambient
    case annotations, callout, place, results, starred, report, locations, vicinity, conditions
    case error, status, warning
    case tally
}
