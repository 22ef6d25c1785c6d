/// Why a station matched a search, best first: the order `search` ranks hits in.
public enum NameMatch: String, Sendable, Comparable, CaseIterable {
    /// The query is the station's id (ASCII case ignored).
    case id
    /// The folded name starts with the folded query.
    case prefix
    /// A later word of the folded name starts with the folded query.
    case word
    /// The folded query is somewhere else inside the folded name.
    case substring

    var rank: Int {
        switch self {
        case .id: 0
        case .prefix: 1
        case .word: 2
        case .substring: 3
        }
    }

    public static func < (a: NameMatch, b: NameMatch) -> Bool { a.rank < b.rank }
}
