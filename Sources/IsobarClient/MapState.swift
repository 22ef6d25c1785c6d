import Foundation
import IsobarCore

/// Everything a map client knows, and the rules for each message from the gateway, without any
/// socket: the annotations applied by version (IsobarCore's ``AnnotationSet``, the same rules the
/// terminal map and the filter's tests use), the viewport and toggles, the selection's callout,
/// the favorites, the connection status and the data's age. ``IsobarClient`` holds one and
/// carries out what ``receive(_:)`` decides; the rules are unit-tested on recorded streams
/// (`MapStateTests`).
public struct MapState: Sendable {
    /// An answer to one of the client's requests (matched to the oldest request of its kind).
    public enum Answer: Sendable, Hashable, Codable {
        case place(NearestPlace)
        case results(SearchResults)
        case report(StationReport)
        case locations(PlaceResults)
        case vicinity(Vicinity)
        case conditions(WeatherConditions)
        /// A `starred` list that answers a `favorite` request (`added`, `removed`, `unchanged`).
        case favorites(FavoriteList)
    }

    /// What the client does after a message.
    public struct Reaction: Sendable, Hashable, Codable {
        /// Frames to send (a `resync` after a version gap).
        public var send: [String] = []
        /// What changed, for ``IsobarClient/updates``.
        public var changes: [MapUpdate.Change] = []
        /// The answer to a pending request, if the message is one.
        public var answer: Answer?
    }

    public let client: String
    /// The set and its version rules (IsobarCore's, shared with every client in the repository).
    private var follower = AnnotationFollower(keepsDetail: true)
    private var annotationSet: AnnotationSet { follower.set }
    public private(set) var viewport: MapViewport?
    /// The selected station's id (nil: none).
    public private(set) var selection: String?
    /// The selection's latest callout (nil once cleared).
    public private(set) var callout: StationCallout?
    public private(set) var favorites: FavoriteList?
    public internal(set) var connection: ConnectionStatus = .stopped
    /// The latest `status` broadcast, as received.
    public private(set) var status: String?
    /// When the annotations' snapshot was fetched (seconds since 1970), as the message says.
    public private(set) var fetchedAt: Double?
    /// When the set shown came from the saved file (seconds since 1970); nil once the gateway
    /// has sent annotations.
    public private(set) var restoredFrom: Double?

    public init(client: String) {
        self.client = client
    }

    /// The annotations to show, in no particular order.
    public var annotations: [MapAnnotation] { annotationSet.values.map(MapAnnotation.init) }
    /// The annotation with this id, if shown.
    public func annotation(_ id: String) -> MapAnnotation? { annotationSet.item(id).map(MapAnnotation.init) }
    public var annotationCount: Int { annotationSet.count }
    /// The version of the last `annotations` applied (0 before any).
    public var version: Int { annotationSet.version }
    /// A version gap broke the set; a full set (asked for already) repairs it.
    public var isBroken: Bool { annotationSet.broken }
    /// The favorites badge.
    public var favoriteCount: Int { favorites?.count ?? 0 }
    /// True while what is shown is not live: not connected, or still the saved set.
    public var isOffline: Bool { !connection.isConnected || restoredFrom != nil }

    /// How old the data shown is at `now` (seconds since 1970): from the snapshot's fetch time.
    public func dataAge(now: Double = Date().timeIntervalSince1970) -> Double? {
        fetchedAt.map { max(0, now - $0) }
    }

    // MARK: What the client sends

    /// A pan, zoom or toggle; returns the frame to send.
    public mutating func setViewport(_ viewport: MapViewport) throws(IsobarClientError) -> String {
        let frame = try Self.frame(viewport.message(client: client, version: reportedVersion))
        self.viewport = viewport
        return frame
    }

    /// Selects a station (nil clears); returns the frame to send.
    public mutating func select(_ id: String?) -> String {
        selection = id
        if id == nil { callout = nil }
        return Self.frame(Select(client: client, id: id))
    }

    /// The version a viewport reports: none before anything is shown (the filter answers at once),
    /// 0 while a gap broke the set (always a full set back), else the applied one (the filter
    /// adopts it after its restart, and resends in full when it sent more since: the lost-answer
    /// rule).
    var reportedVersion: Int? { follower.reportedVersion }

    /// What to send on each (re)connection: the viewport with the version held, and the
    /// selection, so the gateway and the filter pick up where this client was.
    public func helloFrames() -> [String] {
        var frames: [String] = []
        if let viewport, let message = try? viewport.message(client: client, version: reportedVersion) {
            frames.append(Self.frame(message))
        }
        if let selection { frames.append(Self.frame(Select(client: client, id: selection))) }
        return frames
    }

    // MARK: What the client receives

    /// Applies one text frame from the gateway and says what to do. A frame that is not JSON or
    /// not of a known type changes nothing.
    public mutating func receive(_ text: String) -> Reaction {
        let bytes = Array(text.utf8)
        var reaction = Reaction()
        // The formatter's annotations start so: the set reads them in one pass. Any other
        // spelling takes the parse below (the same rules, the general reader).
        if bytes.starts(with: Self.annotationsPrefix) {
            applyAnnotations { (follower: inout AnnotationFollower) throws(MessageError) in try follower.apply(storage: bytes) }.map { reaction = $0 }
            return reaction
        }
        guard let object = try? JSONObject(storage: bytes), let type = try? object.optionalString("type") else { return Reaction() }
        switch type {
        case "annotations":
            applyAnnotations { (follower: inout AnnotationFollower) throws(MessageError) in try follower.apply(object) }.map { reaction = $0 }
        case "callout":
            guard let callout = decode(StationCallout.self, text) else { return reaction }
            if callout.clear {
                self.callout = nil
                if callout.id == selection { selection = nil }
            } else {
                self.callout = callout
            }
            reaction.changes.append(.callout)
        case "starred":
            guard let list = decode(FavoriteList.self, text) else { return reaction }
            favorites = list
            reaction.changes.append(.favorites)
            if ["added", "removed", "unchanged"].contains(list.reason) { reaction.answer = .favorites(list) }
        case "place": reaction.answer = decode(NearestPlace.self, text).map(Answer.place)
        case "results": reaction.answer = decode(SearchResults.self, text).map(Answer.results)
        case "report": reaction.answer = decode(StationReport.self, text).map(Answer.report)
        case "locations": reaction.answer = decode(PlaceResults.self, text).map(Answer.locations)
        case "vicinity": reaction.answer = decode(Vicinity.self, text).map(Answer.vicinity)
        case "conditions": reaction.answer = decode(WeatherConditions.self, text).map(Answer.conditions)
        case "error":
            if let error = decode(ServerError.self, text) { reaction.changes.append(.error(error)) }
        case "status":
            status = text
            reaction.changes.append(.status)
        default:
            break
        }
        return reaction
    }

    private static let annotationsPrefix = Array(#"{"type":"annotations","#.utf8)

    /// Applies an `annotations` line with `apply` and says what follows; nil for a line the set
    /// refuses (nothing changes then).
    private mutating func applyAnnotations(_ apply: (inout AnnotationFollower) throws(MessageError) -> AnnotationFollower.Step) -> Reaction? {
        guard let step = try? apply(&follower) else { return nil }
        var reaction = Reaction()
        switch step {
        case .stale:
            return reaction
        case .gap(let resync):
            // Once per break (the follower's rule); a reconnection reports 0 meanwhile.
            if resync { reaction.send.append(Self.frame(Resync(client: client, reason: "version gap"))) }
        case .applied:
            restoredFrom = nil
            fetchedAt = annotationSet.fetchedAt ?? fetchedAt
        }
        reaction.changes.append(.annotations)
        return reaction
    }

    // MARK: Offline

    /// What the offline file keeps.
    public struct Saved: Sendable, Codable, Equatable {
        public var savedAt: Double
        public var client: String
        public var viewport: MapViewport?
        public var version: Int
        public var fetchedAt: Double?
        public var annotations: [MapAnnotation]
        public var favorites: FavoriteList?
    }

    /// The state to save (nil before anything worth keeping was shown, or while the set is broken).
    public func saved(at now: Double) -> Saved? {
        guard follower.answered || restoredFrom != nil, !annotationSet.broken else { return nil }
        return Saved(savedAt: now, client: client, viewport: viewport, version: annotationSet.version, fetchedAt: fetchedAt,
                     annotations: annotations.sorted { $0.id < $1.id }, favorites: favorites)
    }

    /// Shows a saved state (before the connection is up): marked offline (`restoredFrom`) with
    /// its age, and its version reported on connection so the filter adopts it (no blank map).
    /// Ignored when it is another client's, or when something live is shown already.
    public mutating func restore(_ saved: Saved) -> Bool {
        guard saved.client == client, !follower.answered, saved.version > 0, saved.version <= Viewport.maxVersion else { return false }
        let day: Day = saved.viewport?.day == .tomorrow ? .tomorrow : .today
        let items = saved.annotations.map { item in
            Annotations.Item(id: item.id, coordinate: Coordinate(latitude: item.coordinate.latitude, longitude: item.coordinate.longitude),
                             title: item.title, subtitle: item.subtitle, count: item.isCluster ? item.count : nil,
                             wind: item.rotation.map { Annotations.Wind(speed: 0, unit: "", calm: false, rotation: $0) }, stale: item.isStale)
        }
        var restored = AnnotationSet(keepsDetail: true)
        guard restored.apply(Annotations(client: client, version: saved.version, full: true, day: day, upsert: items)) == .applied else { return false }
        follower.restore(restored)
        viewport = saved.viewport ?? viewport
        favorites = saved.favorites ?? favorites
        fetchedAt = saved.fetchedAt
        restoredFrom = saved.savedAt
        return true
    }

    // MARK: Private

    private func decode<T: Decodable>(_ type: T.Type, _ text: String) -> T? {
        try? JSONDecoder().decode(type, from: Data(text.utf8))
    }

    /// A request as a text frame (IsobarCore's writer, without the line's newline).
    static func frame(_ write: (inout JSONWriter) -> Void) -> String {
        var writer = JSONWriter()
        write(&writer)
        var bytes = writer.bytes
        if bytes.last == UInt8(ascii: "\n") { bytes.removeLast() }
        return String(decoding: bytes, as: UTF8.self)
    }

    static func frame(_ viewport: Viewport) -> String { frame { viewport.write(to: &$0) } }
    static func frame(_ select: Select) -> String { frame { select.write(to: &$0) } }
    static func frame(_ resync: Resync) -> String { frame { resync.write(to: &$0) } }
}
