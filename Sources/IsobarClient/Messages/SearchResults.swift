/// `results`: the answer to `search`, stations by name or id, best first.
public struct SearchResults: Sendable, Hashable, Codable {
    public struct Hit: Sendable, Hashable, Codable {
        public var id: String
        public var name: String?
        public var coordinate: MapAnnotation.Coordinate?
        /// The annotation title in the answer's presentation (`"50°"`).
        public var title: String?
        /// `id`, `prefix`, `word` or `substring`.
        public var match: String
    }

    public var day: String?
    public var query: String
    public var hits: [Hit]
    public var count: Int
    public var snapshot: String?
}
