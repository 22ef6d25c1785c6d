/// `{"type":"callout",...}`: the popup for the client's selected station (the client contract;
/// PROTOCOL.md "callout"), the formatter's rendering of a ``Selection``: a title, a subtitle and
/// labelled lines in the client's units and locale, or `"clear":true` when the selection ended.
public struct Callout: Sendable, Equatable {
    /// One labelled line (`{"label":"Wind","value":"6.9 mph from W (270°) →","key":"windSpeed",…}`):
    /// the text to show and, when the formatter wrote it, the same value as data.
    public struct Line: Sendable, Equatable {
        public var label: String
        public var value: String
        public var data: LineData?

        public init(label: String, value: String, data: LineData? = nil) {
            self.label = label
            self.value = value
            self.data = data
        }

        public init(from object: JSONObject) throws(MessageError) {
            label = try object.requireString("label")
            value = try object.requireString("value")
            data = try LineData(from: object)
        }

        /// `"details":[{"label":…,"value":…},…]`: a callout's lines (a report's and its forecast
        /// points' too).
        public static func writeDetails(_ lines: [Line], to writer: inout JSONWriter) {
            writer.key("details")
            writer.arrayStart()
            for line in lines {
                writer.objectStart()
                writer.key("label"); writer.string(line.label)
                writer.key("value"); writer.string(line.value)
                line.data?.writeMembers(to: &writer)
                writer.objectEnd()
            }
            writer.arrayEnd()
        }
    }

    /// What a shown callout holds (also the station part of `place` and `starred` items).
    public struct Content: Sendable, Equatable {
        public var title: String
        public var subtitle: String
        public var coordinate: Coordinate
        public var details: [Line]

        public init(title: String, subtitle: String, coordinate: Coordinate, details: [Line]) {
            self.title = title
            self.subtitle = subtitle
            self.coordinate = coordinate
            self.details = details
        }

        public init(from object: JSONObject) throws(MessageError) {
            title = try object.requireString("title")
            subtitle = try object.requireString("subtitle")
            coordinate = try Coordinate(from: object.requireObject("coordinate"))
            guard let field = object.field("details"), field.kind == .array else { throw MessageError("field \"details\" must be an array") }
            var lines: [Line] = []
            try object.forEachElement(field) { (element, _) throws(MessageError) in
                guard let element else { throw MessageError("\"details\" must hold objects") }
                lines.append(try Line(from: element))
            }
            details = lines
        }

        /// `title`, `subtitle`, `coordinate`, `details`, as members of the enclosing object.
        public func writeMembers(to writer: inout JSONWriter) {
            writer.key("title"); writer.string(title)
            writer.key("subtitle"); writer.string(subtitle)
            writer.key("coordinate"); coordinate.write(to: &writer)
            Line.writeDetails(details, to: &writer)
        }
    }

    public var client: String
    public var id: String
    public var day: Day
    /// The ``Selection``'s reason, passed through.
    public var reason: String
    /// The popup's content; nil: close the popup (`"clear":true`, nothing else follows).
    public var content: Content?
    /// The station's weather icon, where its feed gives one (after the lines; PROTOCOL.md "callout").
    public var icon: WeatherIcon?
    public var stale: Bool
    public var snapshot: SnapshotInfo

    public init(client: String, id: String, day: Day, reason: String, content: Content?, icon: WeatherIcon? = nil,
                stale: Bool = false, snapshot: SnapshotInfo = .none) {
        self.client = client
        self.id = id
        self.day = day
        self.reason = reason
        self.content = content
        self.icon = content == nil ? nil : icon
        self.stale = stale
        self.snapshot = snapshot
    }

    public init(from object: JSONObject) throws(MessageError) {
        client = try object.requireName("client")
        id = try object.requireName("id")
        day = try object.optionalEnum("day", Day.self) ?? .today
        reason = try object.optionalString("reason") ?? ""
        guard let clear = try object.optionalBool("clear") else { throw MessageError("missing required field \"clear\"") }
        content = clear ? nil : try Content(from: object)
        icon = clear ? nil : try object.optionalEnum("icon", WeatherIcon.self)
        stale = try object.optionalBool("stale") ?? false
        snapshot = try SnapshotInfo(from: object)
    }

    public func write(to writer: inout JSONWriter) {
        writer.objectStart()
        writer.key("type"); writer.string("callout")
        writer.key("client"); writer.string(client)
        writer.key("id"); writer.string(id)
        writer.key("day"); writer.string(day.rawValue)
        writer.key("reason"); writer.string(reason)
        writer.key("clear"); writer.bool(content == nil)
        if let content {
            content.writeMembers(to: &writer)
            if let icon { writer.key("icon"); writer.string(icon.rawValue) }
            if stale { writer.key("stale"); writer.bool(true) }
            snapshot.writeMembers(to: &writer)
        }
        writer.objectEnd()
        writer.newline()
    }
}
