/// Where the data of an answer came from: the four provenance keys (`snapshot`, `source`,
/// `fetchedAt`, `ageSeconds`) that `visible`, `selection`, `annotations` and `callout` carry so a
/// client can say "stored data, 3 h old". All null before the filter holds a snapshot of the day.
public struct SnapshotInfo: Sendable, Equatable {
    /// The snapshot id (`today-…`), nil when the filter has none for the day.
    public var id: String?
    /// `feed` or `store` (kept as text: a formatter passes through what a filter said).
    public var source: String?
    /// Unix seconds the snapshot was fetched.
    public var fetchedAt: Double?
    /// Seconds since `fetchedAt` when the answer was written.
    public var ageSeconds: Double?

    /// No snapshot: every key null.
    public static let none = SnapshotInfo()

    public init(id: String? = nil, source: String? = nil, fetchedAt: Double? = nil, ageSeconds: Double? = nil) {
        self.id = id
        self.source = source
        self.fetchedAt = fetchedAt
        self.ageSeconds = ageSeconds
    }

    /// Reads the four keys of a message (each may be absent or null).
    public init(from object: JSONObject) throws(MessageError) {
        id = try object.optionalString("snapshot")
        source = try object.optionalString("source")
        fetchedAt = try object.optionalNumber("fetchedAt")
        ageSeconds = try object.optionalNumber("ageSeconds")
    }

    /// Writes the four keys (null when unknown), in this order, as members of the enclosing object.
    public func writeMembers(to writer: inout JSONWriter) {
        writer.key("snapshot"); writer.string(id)
        writer.key("source"); writer.string(source)
        writer.key("fetchedAt"); writer.number(fetchedAt)
        writer.key("ageSeconds"); writer.number(ageSeconds)
    }
}
