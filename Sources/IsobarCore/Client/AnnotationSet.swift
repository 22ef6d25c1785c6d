/// A client's view of its annotations, kept by applying every `annotations` message in order as
/// the client contract says. Detects gaps in `version` so the client can ask for a resync instead
/// of silently diverging.
public struct AnnotationSet: Sendable {
    public struct Item: Sendable, Equatable {
        public var id: String
        public var coordinate: Coordinate
        public var title: String
        public var count: Int
        /// The station's data is older than the filter's `--stale-after` (drawn dimmed).
        public var stale: Bool = false
    }

    public enum Outcome: Sendable, Equatable {
        case applied
        /// A message was missed (expected `expected`, got `got`); the set is unreliable until a full one arrives.
        case gap(expected: Int, got: Int)
        /// A stale or duplicate message (version not newer); ignored.
        case stale
    }

    public private(set) var items: [String: Item] = [:]
    public private(set) var version = 0
    public private(set) var day: Day = .today
    public private(set) var field: Field = .temperature
    public private(set) var source: String?
    public private(set) var fetchedAt: Double?
    /// True after a gap until the next full message.
    public private(set) var broken = false

    public init() {}

    public mutating func apply(_ message: JSONObject) throws(MessageError) -> Outcome {
        guard let version = try message.optionalInt("version") else { throw MessageError("missing required field \"version\"") }
        let full = try message.optionalBool("full") ?? false
        if !full {
            if version <= self.version { return .stale }
            if version != self.version + 1 || broken {
                let expected = self.version + 1
                self.version = version
                broken = true
                return .gap(expected: expected, got: version)
            }
        }
        self.version = version
        if full {
            items = [:]
            broken = false
        }
        day = try message.optionalEnum("day", Day.self) ?? day
        field = try message.optionalEnum("field", Field.self) ?? field
        source = try message.optionalString("source")
        fetchedAt = try message.optionalNumber("fetchedAt")
        if let remove = message.field("remove") {
            for element in message.arrayElements(remove) where element.kind == .string {
                items[JSONDecodingAccess.string(message.storage, element.range)] = nil
            }
        }
        if let upsert = message.field("upsert") {
            try message.forEachElement(upsert) { (element, _) throws(MessageError) in
                guard let item = element else { return }
                let id = try item.requireName("id")
                let coordinate = try Coordinate(from: item.requireObject("coordinate"))
                items[id] = Item(id: id, coordinate: coordinate, title: try item.optionalString("title") ?? "",
                                 count: try item.optionalInt("count") ?? 1, stale: try item.optionalBool("stale") ?? false)
            }
        }
        return .applied
    }

    /// How many shown stations are stale (the terminal map's status line says so).
    public var staleCount: Int { items.values.reduce(0) { $0 + ($1.stale ? 1 : 0) } }
}
