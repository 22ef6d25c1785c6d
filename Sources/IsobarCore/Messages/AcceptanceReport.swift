/// What a filter's snapshot rule (``SnapshotAcceptance``) has done so far, carried in every
/// ``Tally`` as `"acceptance"` so each gateway can report it (`/healthz` degraded while a snapshot
/// is held back, counters in `/metrics`) without watching events it may have missed:
/// `{"refusedFuture":0,"heldShrunk":1,"heldEmpty":0,"confirmed":0,"holds":[{"day":"today","snapshot":"today-…","count":1,"of":344}]}`.
///
/// The counters count since the filter started (a restart starts them at 0 again); `holds` lists
/// the snapshots held back now, one per day at most, in day order.
public struct AcceptanceReport: Sendable, Equatable {
    /// A snapshot held back now: `count` stations where the day's snapshot has `of`.
    public struct Hold: Sendable, Equatable {
        public var day: Day
        public var snapshot: String
        public var count: Int
        public var of: Int

        public init(day: Day, snapshot: String, count: Int, of: Int) {
            self.day = day
            self.snapshot = snapshot
            self.count = count
            self.of = of
        }
    }

    /// Snapshots refused for a `fetchedAt` too far in the future.
    public var refusedFuture = 0
    /// Shrunk (non-empty) snapshots held back.
    public var heldShrunk = 0
    /// Empty snapshots held back.
    public var heldEmpty = 0
    /// Held-back snapshots applied because a later fetch of the same content confirmed them.
    public var confirmed = 0
    public var holds: [Hold] = []

    public init(refusedFuture: Int = 0, heldShrunk: Int = 0, heldEmpty: Int = 0, confirmed: Int = 0, holds: [Hold] = []) {
        self.refusedFuture = refusedFuture
        self.heldShrunk = heldShrunk
        self.heldEmpty = heldEmpty
        self.confirmed = confirmed
        self.holds = holds
    }

    public init(from object: JSONObject) throws(MessageError) {
        refusedFuture = try Self.count(object, "refusedFuture")
        heldShrunk = try Self.count(object, "heldShrunk")
        heldEmpty = try Self.count(object, "heldEmpty")
        confirmed = try Self.count(object, "confirmed")
        guard let field = object.field("holds"), field.kind != .null else { return }
        guard field.kind == .array else { throw MessageError("field \"holds\" must be an array, found \(field.kind)") }
        var holds: [Hold] = []
        try object.forEachElement(field) { (element, kind) throws(MessageError) in
            guard let element, holds.count < Day.allCases.count else {
                throw MessageError("\"holds\" must hold at most \(Day.allCases.count) objects, found \(kind)")
            }
            guard let day = try element.optionalEnum("day", Day.self) else { throw MessageError("missing required field \"day\"") }
            holds.append(Hold(day: day, snapshot: try element.requireName("snapshot"),
                              count: try Self.count(element, "count"), of: try Self.count(element, "of")))
        }
        self.holds = holds
    }

    private static func count(_ object: JSONObject, _ key: StaticString) throws(MessageError) -> Int {
        let value = try object.optionalInt(key) ?? 0
        guard value >= 0 else { throw MessageError("field \"\(key)\" must not be negative") }
        return value
    }

    public func write(to writer: inout JSONWriter) {
        writer.objectStart()
        writer.key("refusedFuture"); writer.int(refusedFuture)
        writer.key("heldShrunk"); writer.int(heldShrunk)
        writer.key("heldEmpty"); writer.int(heldEmpty)
        writer.key("confirmed"); writer.int(confirmed)
        writer.key("holds"); writer.arrayStart()
        for hold in holds {
            writer.objectStart()
            writer.key("day"); writer.string(hold.day.rawValue)
            writer.key("snapshot"); writer.string(hold.snapshot)
            writer.key("count"); writer.int(hold.count)
            writer.key("of"); writer.int(hold.of)
            writer.objectEnd()
        }
        writer.arrayEnd()
        writer.objectEnd()
    }
}
