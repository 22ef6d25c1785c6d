/// Why a place matched a `geocode` query, best first: the first order of the ranking (population,
/// then the smaller id, decide within one kind).
public enum PlaceMatch: String, Sendable, Comparable, CaseIterable {
    /// The folded query is the whole folded name or one whole alternate name.
    case exact
    /// The folded name or an alternate name starts with the folded query.
    case prefix
    /// A later word of the name or of an alternate name starts with the folded query.
    case word

    var rank: Int {
        switch self {
        case .exact: 0
        case .prefix: 1
        case .word: 2
        }
    }

    public static func < (a: PlaceMatch, b: PlaceMatch) -> Bool { a.rank < b.rank }
}
