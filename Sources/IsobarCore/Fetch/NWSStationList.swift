/// Reader of api.weather.gov's stations list (`GET /stations?state=CO&limit=500`): a GeoJSON
/// `FeatureCollection` of `wx:ObservationStation` features, each with `geometry` (a Point
/// `[longitude, latitude]`) and `properties` (`stationIdentifier`, `name`, `timeZone`,
/// `elevation`, …), beside `observationStations` (the station URLs) and `pagination.next` (the
/// URL of the next page, with a `cursor`), as the service's OpenAPI document describes.
///
/// A list holds no weather: `--format nws` given a list URL reads it as the station set and asks
/// each station's `/stations/{id}/observations/latest` (the fetcher does the HTTP, bounded and one
/// request at a time; `assemble` here turns the answers into one feed). This type is pure.
public enum NWSStationList {
    static let expected = "an api.weather.gov stations list (a FeatureCollection of stations with \"stationIdentifier\")"

    /// One station of the list: what its observation is asked by, and its name for an observation
    /// that names none.
    public struct Entry: Sendable, Equatable {
        public var id: String
        public var name: String
        public var coordinate: Coordinate

        public init(id: String, name: String, coordinate: Coordinate) {
            self.id = id
            self.name = name
            self.coordinate = coordinate
        }
    }

    /// One page of the list: its valid stations in order, one error per rejected one, and the next
    /// page's URL as the service gave it (nil on the last page).
    public struct Page: Sendable, Equatable {
        public var stations: [Entry] = []
        public var errors: [ErrorMessage] = []
        public var next: String?
    }

    /// True when `body` is a stations list rather than observations: a JSON object with
    /// `features` whose first feature's `properties` has `stationIdentifier` (an empty last page:
    /// `features` empty beside `observationStations`).
    public static func isList(_ body: [UInt8]) -> Bool {
        guard let object = try? JSONObject(storage: body) else { return false }
        return isList(object)
    }

    static func isList(_ object: JSONObject) -> Bool {
        guard let features = object.field("features"), features.kind == .array else { return false }
        guard let first = object.arrayElements(features).first else { return object.has("observationStations") }
        guard first.kind == .object, let properties = try? object.object(at: first.range).optionalObject("properties") else { return false }
        return properties.field("stationIdentifier") != nil
    }

    /// Reads one page. A body that is not a stations list is refused whole; a station without a
    /// usable id or position (or a second one with an id already read) is rejected alone.
    public static func parse(_ body: [UInt8], stage: String = "fetch") throws(MessageError) -> Page {
        let object: JSONObject
        do { object = try JSONObject(storage: body) } catch { throw FeedBody.refusal(expected, "\(error)") }
        guard isList(object), let features = object.field("features") else {
            throw FeedBody.refusal(expected, "it has no \"features\" array of stations")
        }
        var page = Page()
        var seen = Set<String>()
        for (index, element) in object.arrayElements(features).enumerated() {
            let excerpt = FeedBody.excerpt(object.storage[element.range])
            do throws(MessageError) {
                guard element.kind == .object else { throw MessageError("is \(element.kind), not an object", code: .fieldType) }
                let entry = try Self.entry(object.object(at: element.range))
                guard seen.insert(entry.id).inserted else { throw MessageError("duplicate station id \"\(entry.id)\"; kept the first") }
                page.stations.append(entry)
            } catch {
                page.errors.append(ErrorMessage(stage: stage, message: "station \(index) of the list rejected: \(error.message)", excerpt: excerpt, code: error.code))
            }
        }
        if let pagination = try? object.optionalObject("pagination"), let next = try? pagination.optionalString("next"), !next.isEmpty {
            page.next = next
        }
        return page
    }

    /// The `cursor` query item of a page's `pagination.next`, if any (the sample feed pages by it).
    public static func nextCursor(_ body: [UInt8]) -> String? {
        guard let page = try? parse(body), let next = page.next, let query = next.split(separator: "?", maxSplits: 1).dropFirst().first else { return nil }
        for item in query.split(separator: "&") where item.hasPrefix("cursor=") { return String(item.dropFirst(7)) }
        return nil
    }

    /// A station id as the service writes it (ICAO `KDEN`, a network's `0007W`, `CO100`): 1 to 16
    /// ASCII letters and digits, so it can go into a request path as it is.
    static func isStationID(_ text: String) -> Bool {
        (1...16).contains(text.utf8.count) && text.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x7A) }
    }

    static func entry(_ feature: JSONObject) throws(MessageError) -> Entry {
        let properties = try feature.requireObject("properties")
        let id = try properties.requireString("stationIdentifier")
        guard isStationID(id) else { throw MessageError("stationIdentifier \"\(id.prefix(40))\" is not 1 to 16 letters and digits", code: .outOfRange) }
        let geometry = try feature.requireObject("geometry")
        guard let position = geometry.field("coordinates"), position.kind == .array else {
            throw MessageError("geometry.coordinates must be an array [longitude, latitude]")
        }
        let numbers = geometry.arrayElements(position).compactMap { element in
            element.kind == .number ? geometry.storage.withUnsafeBytes { JSONDecoding.parseNumber($0, element.range) } + 0.0 : nil
        }
        guard numbers.count >= 2, numbers[0].isFinite, numbers[1].isFinite else {
            throw MessageError("geometry.coordinates must hold two numbers [longitude, latitude]")
        }
        let coordinate = try FeedValues.coordinate(latitude: numbers[1], longitude: numbers[0])
        let name = try properties.optionalString("name").flatMap { $0.isEmpty ? nil : $0 } ?? id
        return Entry(id: id, name: name, coordinate: coordinate)
    }

    /// The path of a station's latest observation on the service.
    public static func observationPath(_ id: String) -> String { "/stations/\(id)/observations/latest" }

    /// One station's answer: the body of its latest observation, or why there is none.
    public typealias Answer = Result<[UInt8], MessageError>

    /// The feed the stations' latest observations make, in the list's order: each observation read
    /// as `--format nws` reads a Feature (values converted per unit), named from the list when it
    /// names itself nowhere. A station whose request failed, whose answer is not an observation,
    /// or that answered for another station is rejected alone; none valid refuses the whole.
    public static func assemble(_ stations: [Entry], answers: [Answer], stage: String = "fetch") throws(MessageError) -> ParsedFeed {
        var collector = FeedCollector(stage: stage)
        collector.reserve(records: stations.count)
        for (entry, answer) in zip(stations, answers) {
            collector.add(excerpt: entry.id) { (warnings: inout [String]) throws(MessageError) -> Station in
                let body = try answer.get()
                let feature: JSONObject
                do { feature = try JSONObject(storage: body) } catch {
                    throw MessageError("station \(entry.id): its latest observation is not a JSON object (\(error))")
                }
                guard NWSFeed.isResponse(feature), feature.field("properties") != nil else {
                    throw MessageError("station \(entry.id): its answer is not an observation Feature")
                }
                var station = try NWSFeed.record(feature, warnings: &warnings)
                guard station.id == entry.id else {
                    throw MessageError("station \(entry.id): the observation is of station \"\(station.id.prefix(40))\"")
                }
                if station.name == station.id { station.name = entry.name }
                return station
            }
        }
        return try collector.finish()
    }
}
