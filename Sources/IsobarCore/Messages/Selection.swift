/// `{"type":"selection",...}`: the filter's answer to a client's `select`, to the formatter. The
/// selected station's current data (with every optional field it has), or `station: null` when the
/// selection ended. PROTOCOL.md "selection".
public struct Selection: Sendable, Equatable {
    /// Why it was sent. The filter sends `selected`, `updated` (new values or a toggle), `cleared`
    /// (the client selected nothing or another station) and `not-visible` (the station left the view
    /// or became part of a cluster); a formatter passes any other text through unchanged.
    public var reason: String
    public var client: String
    public var id: String
    public var day: Day
    public var snapshot: SnapshotInfo
    public var presentation: Presentation
    /// The station, nil when the selection ended (`"station":null`).
    public var station: Station?
    /// The station's data is older than the filter's `--stale-after`.
    public var stale: Bool

    public init(client: String, id: String, day: Day, reason: String, station: Station?, stale: Bool = false,
                snapshot: SnapshotInfo = .none, presentation: Presentation = Presentation()) {
        self.client = client
        self.id = id
        self.day = day
        self.reason = reason
        self.station = station
        self.stale = stale
        self.snapshot = snapshot
        self.presentation = presentation
    }

    public init(from object: JSONObject) throws(MessageError) {
        client = try object.requireName("client")
        id = try object.requireName("id")
        day = try object.optionalEnum("day", Day.self) ?? .today
        reason = try object.optionalString("reason") ?? ""
        snapshot = try SnapshotInfo(from: object)
        presentation = try Presentation(from: object)
        if let field = object.field("station"), let stationObject = object.object(field) {
            station = try Station(from: stationObject)
            stale = try stationObject.optionalBool("stale") ?? false
        } else {
            station = nil
            stale = false
        }
    }

    public func write(to writer: inout JSONWriter) {
        writer.objectStart()
        writer.key("type"); writer.string("selection")
        writer.key("client"); writer.string(client)
        writer.key("id"); writer.string(id)
        writer.key("day"); writer.string(day.rawValue)
        snapshot.writeMembers(to: &writer)
        presentation.write(to: &writer)
        writer.key("reason"); writer.string(reason)
        writer.key("station")
        if let station {
            writer.objectStart()
            station.writeMembers(to: &writer)
            station.writeDetails(to: &writer)
            if stale { writer.key("stale"); writer.bool(true) }
            writer.objectEnd()
        } else {
            writer.null()
        }
        writer.objectEnd()
        writer.newline()
    }
}
