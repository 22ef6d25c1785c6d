/// `{"type":"status",...}`: the health of one feed, so the persister and clients know when data
/// is live and when the feed is offline.
public struct StatusMessage: Sendable, Equatable {
    /// `held`: a complete snapshot was implausible (much smaller than the day's, or empty) and
    /// was not applied; the previous one stays until a later fetch confirms it (written by the
    /// filter, see `SnapshotAcceptance`).
    public enum State: String, Sendable, CaseIterable { case ok, unchanged, failed, held }

    public var day: Day
    public var state: State
    public var url: String
    /// The format of each source, in source order (`--format auto` as it resolved): what the data
    /// comes from, so a client can give each its credit (PROTOCOL.md "status"). Empty: not known
    /// (the filter's `held`; an `auto` source before its first body); written only when known.
    public var formats: [String]
    /// Why it failed (empty when ok).
    public var reason: String
    /// Consecutive failures so far (0 when ok).
    public var attempt: Int
    /// Seconds until the next attempt.
    public var retryIn: Double

    public init(day: Day, state: State, url: String, formats: [String] = [], reason: String = "", attempt: Int = 0, retryIn: Double = 0) {
        self.day = day
        self.state = state
        self.url = url
        self.formats = formats
        self.reason = reason
        self.attempt = attempt
        self.retryIn = retryIn
    }

    public init(from object: JSONObject) throws(MessageError) {
        guard let day = try object.optionalEnum("day", Day.self) else { throw MessageError("missing required field \"day\"") }
        guard let state = try object.optionalEnum("state", State.self) else { throw MessageError("missing required field \"state\"") }
        self.day = day
        self.state = state
        url = try object.optionalString("url") ?? ""
        var formats: [String] = []
        if let field = object.field("formats") {
            guard field.kind == .array else { throw MessageError("field \"formats\" must be an array of strings") }
            for element in object.arrayElements(field) {
                guard element.kind == .string else { throw MessageError("field \"formats\" must be an array of strings") }
                formats.append(JSONDecodingAccess.string(object.storage, element.range))
            }
        }
        self.formats = formats
        reason = try object.optionalString("reason") ?? ""
        attempt = try object.optionalInt("attempt") ?? 0
        retryIn = try object.optionalNumber("retryIn") ?? 0
    }

    public func write(to writer: inout JSONWriter) {
        writer.objectStart()
        writer.key("type"); writer.string("status")
        writer.key("day"); writer.string(day.rawValue)
        writer.key("state"); writer.string(state.rawValue)
        writer.key("url"); writer.string(url)
        if !formats.isEmpty {
            writer.key("formats")
            writer.arrayStart()
            for format in formats { writer.string(format) }
            writer.arrayEnd()
        }
        writer.key("reason"); writer.string(reason)
        writer.key("attempt"); writer.int(attempt)
        writer.key("retryIn"); writer.number((retryIn * 1000).rounded() / 1000)
        writer.objectEnd()
        writer.newline()
    }
}
