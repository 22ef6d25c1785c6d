/// One entry of a client's favorites list: a station (by its feed id, as before places existed),
/// a gazetteer place (its geonameid with the name and coordinate the places stage resolved), or a
/// dropped pin (a coordinate and the name the client showed for it, usually reverse geocoded).
/// One list holds all three kinds, in the order the client put them.
///
/// Two entries are the same favorite when their ``kind`` and ``key`` are equal: a station by id,
/// a place by geonameid (a renamed place stays one favorite), a pin by its coordinate.
public enum FavoriteEntry: Sendable, Equatable {
    case station(String)
    case place(Place)
    case pin(Pin)

    /// A dropped pin: where, and what the client calls it.
    public struct Pin: Sendable, Equatable {
        public var name: String
        public var coordinate: Coordinate

        public init(name: String, coordinate: Coordinate) {
            self.name = name
            self.coordinate = coordinate
        }

        /// `{"name":"Stara Zagora","latitude":42.43,"longitude":25.64}`; `name` is required only
        /// when `named` (a pin is removed by its coordinate alone).
        public init(from object: JSONObject, named: Bool = true) throws(MessageError) {
            coordinate = try Coordinate(from: object)
            name = named ? try object.requireName("name") : (try object.optionalString("name") ?? "")
        }

        public func write(to writer: inout JSONWriter) {
            writer.objectStart()
            writer.key("name"); writer.string(name)
            writer.key("latitude"); writer.number(coordinate.latitude)
            writer.key("longitude"); writer.number(coordinate.longitude)
            writer.objectEnd()
        }
    }

    /// `station`, `place` or `pin`: the column the favorites file keys entries by beside ``key``.
    public var kind: String {
        switch self {
        case .station: return "station"
        case .place: return "place"
        case .pin: return "pin"
        }
    }

    /// What identifies the entry within its kind: the station id, the geonameid in decimal, or
    /// the pin's coordinate as `latitude,longitude` written as JSON numbers.
    public var key: String {
        switch self {
        case .station(let id): return id
        case .place(let place): return String(place.id)
        case .pin(let pin):
            var writer = JSONWriter()
            writer.number(pin.coordinate.latitude)
            writer.number(pin.coordinate.longitude)
            return String(decoding: writer.bytes, as: UTF8.self)
        }
    }

    /// Whether `other` is the same favorite (same kind and key), whatever its name says.
    public func sameFavorite(as other: FavoriteEntry) -> Bool { kind == other.kind && key == other.key }

    /// The coordinate the weather of a place or pin is looked up at (nil for a station).
    public var point: Coordinate? {
        switch self {
        case .station: return nil
        case .place(let place): return place.coordinate
        case .pin(let pin): return pin.coordinate
        }
    }

    /// Reads one entry from an object holding exactly one of `id` (a station), `place` (a place
    /// object as `locations` writes it) or `pin` (`{"name","latitude","longitude"}`). `complete`
    /// false (a removal) needs only what identifies the entry: a place's `id`, a pin's coordinate.
    public init(from object: JSONObject, complete: Bool = true) throws(MessageError) {
        let given = [object.field("id") != nil, object.field("place") != nil, object.field("pin") != nil].filter { $0 }.count
        guard given == 1 else {
            throw MessageError("a favorite needs exactly one of \"id\" (a station), \"place\" or \"pin\"",
                               code: given == 0 ? .fieldMissing : .invalid)
        }
        if object.field("id") != nil {
            self = .station(try object.requireName("id"))
        } else if object.field("place") != nil {
            let placeObject = try object.requireObject("place")
            if complete {
                self = .place(try Place(from: placeObject))
            } else {
                guard let id = try placeObject.optionalInt("id"), id > 0, id <= Int(Int32.max) else {
                    throw MessageError("place field \"id\" must be a positive GeoNames id", code: .outOfRange)
                }
                self = .place(Place(id: id, name: "", admin1: nil, countryCode: "", country: nil,
                                    coordinate: Coordinate(latitude: 0, longitude: 0), population: 0, timeZone: nil))
            }
        } else {
            self = .pin(try Pin(from: try object.requireObject("pin"), named: complete))
        }
    }

    /// The entry's identifying member: `"id":"K1D3"`, `"place":{...}` or `"pin":{...}`.
    public func writeMember(to writer: inout JSONWriter) {
        switch self {
        case .station(let id): writer.key("id"); writer.string(id)
        case .place(let place): writer.key("place"); place.write(to: &writer)
        case .pin(let pin): writer.key("pin"); pin.write(to: &writer)
        }
    }

    /// The entry as an object of its one member (an element of `items`).
    public func write(to writer: inout JSONWriter) {
        writer.objectStart()
        writeMember(to: &writer)
        writer.objectEnd()
    }

    /// What the favorites file stores beside kind and key: the place or pin object as JSON (nil
    /// for a station, whose id is all there is).
    public var storedData: String? {
        var writer = JSONWriter()
        switch self {
        case .station: return nil
        case .place(let place): place.write(to: &writer)
        case .pin(let pin): pin.write(to: &writer)
        }
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    /// An entry read back from the favorites file's kind, key and data columns; nil when the row
    /// cannot be read (a hand-edited file), so one bad row never costs the list.
    public init?(kind: String, key: String, data: String?) {
        switch kind {
        case "station":
            self = .station(key)
        case "place":
            guard let data, let object = try? JSONObject(parsing: data), let place = try? Place(from: object) else { return nil }
            self = .place(place)
        case "pin":
            guard let data, let object = try? JSONObject(parsing: data), let pin = try? Pin(from: object) else { return nil }
            self = .pin(pin)
        default:
            return nil
        }
    }
}

/// A string literal is a station id: `["LZKZ", "K1D3"]` is a list of two station favorites, as
/// lists were before places.
extension FavoriteEntry: ExpressibleByStringLiteral {
    public init(stringLiteral id: String) { self = .station(id) }
}
