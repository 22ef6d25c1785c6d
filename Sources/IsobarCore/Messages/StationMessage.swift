/// `{"type":"station",...}`: one member of a snapshot.
///
/// `snapshot` names the snapshot it belongs to and `seq` is its 0-based position in it, so a
/// consumer can tell a complete snapshot (all of 0..<count arrived) from one with a gap.
public struct StationMessage: Sendable, Equatable {
    public var day: Day
    public var snapshot: String
    public var seq: Int
    public var station: Station

    public init(day: Day, snapshot: String, seq: Int, station: Station) {
        self.day = day
        self.snapshot = snapshot
        self.seq = seq
        self.station = station
    }

    public init(from object: JSONObject) throws(MessageError) {
        guard let day = try object.optionalEnum("day", Day.self) else { throw MessageError("missing required field \"day\"") }
        self.day = day
        snapshot = try object.requireName("snapshot")
        guard let seq = try object.optionalInt("seq") else { throw MessageError("missing required field \"seq\"") }
        guard seq >= 0 else { throw MessageError("seq \(seq) is negative") }
        self.seq = seq
        station = try Station(from: object)
    }

    public func write(to writer: inout JSONWriter) {
        Self.write(station, seq: seq, opening: Self.opening(day: day, snapshot: snapshot), to: &writer)
    }

    /// What every station line of one snapshot starts with, through `"seq":`. A snapshot of a
    /// million stations writes it once instead of four keys and three strings per line.
    public static func opening(day: Day, snapshot: String) -> [UInt8] {
        var writer = JSONWriter()
        writer.objectStart()
        writer.key("type"); writer.string("station")
        writer.key("day"); writer.string(day.rawValue)
        writer.key("snapshot"); writer.string(snapshot)
        writer.key("seq")
        return writer.bytes
    }

    /// One station line after its snapshot's `opening`: the same bytes as `write(to:)`.
    public static func write(_ station: Station, seq: Int, opening: [UInt8], to writer: inout JSONWriter) {
        writer.rawOpening(opening)
        writer.int(seq)
        station.writeMembers(to: &writer)
        station.writeDetails(to: &writer)
        writer.objectEnd()
        writer.newline()
    }
}
