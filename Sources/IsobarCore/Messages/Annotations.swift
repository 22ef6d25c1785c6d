/// `{"type":"annotations",...}`: what a client draws (the client contract; PROTOCOL.md
/// "annotations"). The formatter's rendering of a ``Visible``: titles, subtitles and values in the
/// client's field, units and locale, as a full set or a diff against the previous version.
///
/// The formatter writes these on the hot path: it writes the head with ``writeHead(to:)``, each
/// item in place (copying already-canonical text from the filter's line; the same bytes as
/// ``Item/write(to:field:)``) and closes with ``writeTail(remove:to:)``.
public struct Annotations: Sendable, Equatable {
    /// A wind value as the client shows it: speed in the client's unit, and unless calm, where it
    /// blows from and to, an arrow and the arrow's rotation (degrees clockwise from north).
    public struct Wind: Sendable, Equatable {
        public var speed: Double
        public var unit: String
        public var calm: Bool
        /// Present together, only when not calm and the direction is known.
        public var from: String?
        public var fromDegrees: Double?
        public var to: String?
        public var arrow: String?
        public var rotation: Double?

        public init(speed: Double, unit: String, calm: Bool, from: String? = nil, fromDegrees: Double? = nil, to: String? = nil,
                    arrow: String? = nil, rotation: Double? = nil) {
            self.speed = speed
            self.unit = unit
            self.calm = calm
            self.from = from
            self.fromDegrees = fromDegrees
            self.to = to
            self.arrow = arrow
            self.rotation = rotation
        }

        public init(from object: JSONObject) throws(MessageError) {
            speed = try object.requireNumber("speed")
            unit = try object.requireString("unit")
            guard let calm = try object.optionalBool("calm") else { throw MessageError("missing required field \"calm\"") }
            self.calm = calm
            from = try object.optionalString("from")
            fromDegrees = try object.optionalNumber("fromDegrees")
            to = try object.optionalString("to")
            arrow = try object.optionalString("arrow")
            rotation = try object.optionalNumber("rotation")
        }

        public func write(to writer: inout JSONWriter) {
            writer.objectStart()
            writer.key("speed"); writer.number(speed)
            writer.key("unit"); writer.string(unit)
            writer.key("calm"); writer.bool(calm)
            if let from, let fromDegrees, let to, let arrow, let rotation {
                writer.key("from"); writer.string(from)
                writer.key("fromDegrees"); writer.number(fromDegrees)
                writer.key("to"); writer.string(to)
                writer.key("arrow"); writer.string(arrow)
                writer.key("rotation"); writer.number(rotation)
            }
            writer.objectEnd()
        }
    }

    /// One annotation: a station, or a cluster (`count` set) of stations.
    public struct Item: Sendable, Equatable {
        public var id: String
        public var coordinate: Coordinate
        public var title: String
        /// The station's name, or "12 stations" for a cluster.
        public var subtitle: String
        /// How many stations a cluster stands for; nil for a station.
        public var count: Int?
        /// The field's value in the client's units (temperature, precipitation); nil when unknown
        /// and always for the wind field, which has ``wind`` instead.
        public var value: Double?
        /// The wind field's value; nil for the other fields and when the speed is unknown.
        public var wind: Wind?
        /// The conditions field's icon (a station's, a cluster's most common); nil for the other
        /// fields and where no icon is known.
        public var icon: WeatherIcon?
        public var stale: Bool

        public init(id: String, coordinate: Coordinate, title: String, subtitle: String, count: Int? = nil, value: Double? = nil,
                    wind: Wind? = nil, icon: WeatherIcon? = nil, stale: Bool = false) {
            self.id = id
            self.coordinate = coordinate
            self.title = title
            self.subtitle = subtitle
            self.count = count
            self.value = value
            self.wind = wind
            self.icon = icon
            self.stale = stale
        }

        public init(from object: JSONObject) throws(MessageError) {
            id = try object.requireName("id")
            coordinate = try Coordinate(from: object.requireObject("coordinate"))
            title = try object.requireString("title")
            subtitle = try object.optionalString("subtitle") ?? ""
            if try object.optionalBool("cluster") == true {
                guard let count = try object.optionalInt("count"), count > 0 else { throw MessageError("a cluster needs a positive \"count\"") }
                self.count = count
            } else {
                count = nil
            }
            value = try object.optionalNumber("value")
            if let field = object.field("wind") {
                guard let windObject = object.object(field) else { throw MessageError("field \"wind\" must be an object") }
                wind = try Wind(from: windObject)
            } else {
                wind = nil
            }
            icon = try object.optionalEnum("icon", WeatherIcon.self)
            stale = try object.optionalBool("stale") ?? false
        }

        /// The element as the formatter writes it for a client showing `field`: `value` (maybe
        /// null) for temperature and precipitation, `wind` (when known) for wind, `icon` (when
        /// known) for conditions.
        public func write(to writer: inout JSONWriter, field: Field) {
            writer.objectStart()
            writer.key("id"); writer.string(id)
            writer.key("coordinate"); coordinate.write(to: &writer)
            writer.key("title"); writer.string(title)
            writer.key("subtitle"); writer.string(subtitle)
            if let count {
                writer.key("cluster"); writer.bool(true)
                writer.key("count"); writer.int(count)
            }
            switch field {
            case .temperature, .precipitation:
                writer.key("value"); writer.number(value)
            case .wind:
                if let wind { writer.key("wind"); wind.write(to: &writer) }
            case .conditions:
                if let icon { writer.key("icon"); writer.string(icon.rawValue) }
            }
            if stale { writer.key("stale"); writer.bool(true) }
            writer.objectEnd()
        }
    }

    public var client: String
    public var version: Int
    public var full: Bool
    public var day: Day
    /// The presentation the titles are in (every choice made).
    public var presentation: ResolvedPresentation
    public var snapshot: SnapshotInfo
    public var upsert: [Item]
    public var remove: [String]

    public init(client: String, version: Int, full: Bool, day: Day, presentation: ResolvedPresentation = ResolvedPresentation(),
                snapshot: SnapshotInfo = .none, upsert: [Item] = [], remove: [String] = []) {
        self.client = client
        self.version = version
        self.full = full
        self.day = day
        self.presentation = presentation
        self.snapshot = snapshot
        self.upsert = upsert
        self.remove = remove
    }

    /// Reads the whole message, every item typed.
    public init(from object: JSONObject) throws(MessageError) {
        client = try object.requireName("client")
        guard let version = try object.optionalInt("version") else { throw MessageError("missing required field \"version\"") }
        self.version = version
        full = try object.optionalBool("full") ?? false
        day = try object.optionalEnum("day", Day.self) ?? .today
        presentation = try ResolvedPresentation(from: object)
        snapshot = try SnapshotInfo(from: object)
        guard let field = object.field("upsert"), field.kind == .array else { throw MessageError("field \"upsert\" must be an array") }
        var items: [Item] = []
        try object.forEachElement(field) { (element, _) throws(MessageError) in
            guard let element else { throw MessageError("\"upsert\" must hold objects") }
            items.append(try Item(from: element))
        }
        upsert = items
        remove = try Visible.readIDs(object, key: "remove")
    }

    public func write(to writer: inout JSONWriter) {
        writeHead(to: &writer)
        for item in upsert { item.write(to: &writer, field: presentation.field) }
        Self.writeTail(remove: remove, to: &writer)
    }

    /// Everything up to and including `"upsert":[`; the items follow, then ``writeTail(remove:to:)``.
    public func writeHead(to writer: inout JSONWriter) {
        writer.objectStart()
        writer.key("type"); writer.string("annotations")
        writer.key("client"); writer.string(client)
        writer.key("version"); writer.int(version)
        writer.key("full"); writer.bool(full)
        writer.key("day"); writer.string(day.rawValue)
        presentation.write(to: &writer)
        snapshot.writeMembers(to: &writer)
        writer.key("upsert")
        writer.arrayStart()
    }

    /// Closes `upsert`, writes `remove` and ends the line (the same tail as ``Visible``'s).
    public static func writeTail<Removed: Sequence<String>>(remove: Removed, to writer: inout JSONWriter) {
        Visible.writeTail(remove: remove, to: &writer)
    }
}
