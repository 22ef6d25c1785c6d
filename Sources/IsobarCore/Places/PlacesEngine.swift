/// The places stage: answers `geocode` with `locations` and `reverse` with `vicinity` from one
/// immutable ``Gazetteer``, one answer (or one `error`) per request; every other message type
/// passes through unchanged, as in the other stages. Stateless, so it can be restarted or replaced
/// at any moment. Without a gazetteer (none configured, or the file could not be loaded) each
/// request is answered with an `error` saying so and the rest of the pipeline is unaffected. A
/// `weather` request is not answered here: it leaves as a ``Spot`` for the filter with its place
/// resolved (PlacesEngine+Weather.swift), a `bookmark` as a `favorite` with its places resolved
/// (PlacesEngine+Bookmark.swift).
public struct PlacesEngine: Sendable, LineStage {
    /// The places stage in the table of message types: it subscribes to the clients' requests
    /// for it (``Stage/subscriptions``).
    public static let party = Party.places

    public let gazetteer: Gazetteer?
    /// Why there is no gazetteer, told to each client that asks (nil when one is loaded).
    public let unavailable: String

    public init(gazetteer: Gazetteer?, unavailable: String = "no gazetteer is loaded") {
        self.gazetteer = gazetteer
        self.unavailable = unavailable
    }

    /// ``LineStage``'s entry: the stage keeps no time.
    public func handle(line: UnsafeRawBufferPointer, now: Double, into out: inout JSONWriter) {
        handle(line: line, into: &out)
    }

    public func handle(line: UnsafeRawBufferPointer, into out: inout JSONWriter) {
        let object: JSONObject
        do {
            object = try JSONObject(parsing: line)
        } catch {
            ErrorMessage(stage: Self.stage, message: "not a JSON object: \(error)", line: line, code: .notJSON).write(to: &out)
            return
        }
        let mark = out.bytes.count
        do {
            switch try object.requireName("type", maxLength: .max) {
            case "geocode": try geocode(GeocodeRequest(from: object), into: &out)
            case "reverse": try reverse(ReverseRequest(from: object), into: &out)
            case "weather": try weather(WeatherRequest(from: object), into: &out)
            case "bookmark": try bookmark(object, into: &out)
            default:
                out.raw(object.rawBytes)
                out.newline()
            }
        } catch {
            out.truncate(to: mark)
            ErrorMessage(stage: Self.stage, error, line: line, client: ErrorMessage.client(of: object)).write(to: &out)
        }
    }

    func geocode(_ request: GeocodeRequest, into out: inout JSONWriter) throws(MessageError) {
        guard let gazetteer else { throw MessageError(unavailable) }
        if let id = request.id {
            guard let place = gazetteer.place(id: id) else { throw MessageError("unknown place id \(id)") }
            LocationsAnswer(client: request.client, query: nil, id: id, results: [Gazetteer.Hit(place: place, match: .exact)]).write(to: &out)
            return
        }
        let query = request.query ?? ""
        guard let hits = gazetteer.geocode(query, country: request.country, state: request.state, limit: request.limit) else {
            if let country = request.country, Gazetteer.countryCode(country) == nil {
                throw MessageError("unknown country \"\(country.prefix(60))\"")
            }
            throw MessageError("unknown US state \"\((request.state ?? "").prefix(60))\"")
        }
        LocationsAnswer(client: request.client, query: query, id: nil, results: hits).write(to: &out)
    }

    func reverse(_ request: ReverseRequest, into out: inout JSONWriter) throws(MessageError) {
        guard let gazetteer else { throw MessageError(unavailable) }
        let nearby = gazetteer.reverse(request.point, radiusKm: request.radiusKm)
        VicinityAnswer(client: request.client, point: request.point, radiusKm: request.radiusKm, nearby: nearby).write(to: &out)
    }
}
