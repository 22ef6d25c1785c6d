/// `forecast` (forecast stage → filter, topic `forecast`): the hourly and daily forecast of one
/// cell, or why there is none, and until when it holds (`expiresAt`: the next model refresh, or
/// the retry time after a failure). The filter keeps it per cell and attaches it to the detail of
/// every station and place inside the cell that has no forecast of its own.
///
/// ```json
/// {"type":"forecast","latitude":48.7,"longitude":21.3,"state":"ok","fetchedAt":1795683000,"expiresAt":1795686600,"timeZone":"Europe/Bratislava","hourly":[…],"daily":[…]}
/// {"type":"forecast","latitude":48.7,"longitude":21.3,"state":"failed","reason":"HTTP 500 Internal Server Error","fetchedAt":1795683000,"expiresAt":1795683300}
/// ```
public struct ForecastMessage: Sendable, Equatable {
    public enum State: String, Sendable, CaseIterable {
        case ok
        case failed
    }

    public var cell: ForecastCell
    public var state: State
    /// Why there is no forecast (`failed` only).
    public var reason: String?
    /// Unix seconds.
    public var fetchedAt: Double
    public var expiresAt: Double
    /// The point's IANA zone as the source named it (Open-Meteo's `timezone` with `timezone=auto`).
    public var timeZone: String?
    public var hourly: [ForecastPoint]
    public var daily: [ForecastPoint]

    public init(cell: ForecastCell, state: State, reason: String? = nil, fetchedAt: Double, expiresAt: Double,
                timeZone: String? = nil, hourly: [ForecastPoint] = [], daily: [ForecastPoint] = []) {
        self.cell = cell
        self.state = state
        self.reason = reason
        self.fetchedAt = fetchedAt
        self.expiresAt = expiresAt
        self.timeZone = timeZone
        self.hourly = hourly
        self.daily = daily
    }

    public init(from object: JSONObject) throws(MessageError) {
        cell = try ForecastCell(from: object)
        guard let state = try object.optionalEnum("state", State.self) else { throw MessageError("missing required field \"state\"", code: .fieldMissing) }
        self.state = state
        reason = try object.optionalString("reason")
        fetchedAt = try object.requireNumber("fetchedAt")
        expiresAt = try object.requireNumber("expiresAt")
        // The zone, hourly and daily points are read (and range-checked) as a station line's.
        let details = try StationDetails.read(from: object)
        timeZone = details?.timeZone
        hourly = details?.hourly ?? []
        daily = details?.daily ?? []
    }

    public func write(to out: inout JSONWriter) {
        out.objectStart()
        out.key("type"); out.string("forecast")
        cell.writeMembers(to: &out)
        out.key("state"); out.string(state.rawValue)
        if let reason { out.key("reason"); out.string(reason) }
        out.key("fetchedAt"); out.number(fetchedAt)
        out.key("expiresAt"); out.number(expiresAt)
        if let timeZone { out.key("timeZone"); out.string(timeZone) }
        writePoints(to: &out)
        out.objectEnd()
        out.newline()
    }

    /// `"hourly":[…],"daily":[…]`, each only when it has points (as on a station line).
    public func writePoints(to out: inout JSONWriter) {
        for (key, points) in [("hourly" as StaticString, hourly), ("daily", daily)] where !points.isEmpty {
            out.key(key)
            out.arrayStart()
            for point in points { point.write(to: &out) }
            out.arrayEnd()
        }
    }
}
