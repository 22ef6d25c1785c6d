/// `{"type":"snapshot",...}`: the end marker that completes a snapshot.
///
/// A consumer switches to the snapshot only when it has all `count` stations of this id.
/// `source` says whether the data came from the feed or was replayed from the store, and
/// `fetchedAt` (Unix seconds) when it was fetched, so clients can show how old it is.
public struct SnapshotEnd: Sendable, Equatable {
    public enum Source: String, Sendable, CaseIterable { case feed, store }

    public var day: Day
    public var snapshot: String
    public var count: Int
    public var source: Source
    public var fetchedAt: Double
    /// Seconds between fetching and this publication (0 for fresh feed data).
    public var ageSeconds: Double

    public init(day: Day, snapshot: String, count: Int, source: Source, fetchedAt: Double, ageSeconds: Double = 0) {
        self.day = day
        self.snapshot = snapshot
        self.count = count
        self.source = source
        self.fetchedAt = fetchedAt
        self.ageSeconds = ageSeconds
    }

    public init(from object: JSONObject) throws(MessageError) {
        guard let day = try object.optionalEnum("day", Day.self) else { throw MessageError("missing required field \"day\"") }
        self.day = day
        snapshot = try object.requireName("snapshot")
        guard let count = try object.optionalInt("count") else { throw MessageError("missing required field \"count\"") }
        guard count >= 0 else { throw MessageError("count \(count) is negative") }
        self.count = count
        source = try object.optionalEnum("source", Source.self) ?? .feed
        fetchedAt = try object.optionalNumber("fetchedAt") ?? 0
        ageSeconds = try object.optionalNumber("ageSeconds") ?? 0
    }

    public func write(to writer: inout JSONWriter) {
        writer.objectStart()
        writer.key("type"); writer.string("snapshot")
        writer.key("day"); writer.string(day.rawValue)
        writer.key("snapshot"); writer.string(snapshot)
        writer.key("count"); writer.int(count)
        writer.key("source"); writer.string(source.rawValue)
        writer.key("fetchedAt"); writer.number(fetchedAt)
        writer.key("ageSeconds"); writer.number(ageSeconds.rounded())
        writer.objectEnd()
        writer.newline()
    }
}
