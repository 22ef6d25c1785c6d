/// `{"type":"viewport",...}`: what a client is looking at (the fixed client contract).
///
/// Region is MapKit's: a center plus a span. Optional keys beyond the contract: `units`,
/// `windUnit`, `locale`, `limit` (most annotations before the filter clusters; default 500), and
/// `version`: the annotations version the client has applied, sent with its periodic heartbeat so
/// the filter can tell when an answer was lost (a restart anywhere on the path) and resend in full.
public struct Viewport: Sendable, Equatable {
    public static let defaultLimit = 500
    /// Largest accepted `limit`: above it a single answer could be hundreds of megabytes.
    public static let maxLimit = 1_000_000
    /// Largest `version` a viewport may carry (10^15). Every stage reads integers below 9 x 10^15,
    /// and a filter continues a client's versions from the one it reports: a bound far below
    /// that limit leaves 8 x 10^15 versions before a next stage could refuse one (PROTOCOL.md).
    public static let maxVersion = 1_000_000_000_000_000

    public var client: String
    public var region: Region
    public var day: Day
    public var presentation: Presentation
    public var limit: Int
    /// The last annotations version the client applied (heartbeats carry it; nil: not said).
    public var version: Int?
    /// The gateway hosting the client (set by the gateway, never by the app): such a client is kept
    /// alive by its gateway's ``Lease``, not by heartbeats of its own.
    public var gateway: String?
    /// The gateway's number for this viewport of the client (1, 2, …), part of ``LeaseDigest``.
    public var ref: Int?

    public init(client: String, region: Region, day: Day = .today, presentation: Presentation = Presentation(),
                limit: Int = Viewport.defaultLimit, version: Int? = nil, gateway: String? = nil, ref: Int? = nil) {
        self.client = client
        self.region = region
        self.day = day
        self.presentation = presentation
        self.limit = limit
        self.version = version
        self.gateway = gateway
        self.ref = ref
    }

    /// Whether `other` asks for exactly the same annotations (everything but `version`).
    public func showsSame(as other: Viewport) -> Bool {
        client == other.client && region == other.region && day == other.day
            && presentation == other.presentation && limit == other.limit
    }

    /// `client`: the name to use when the object has no `client` member (a gateway's frame, which
    /// never names its client); without it, `client` is required.
    public init(from object: JSONObject, client name: String? = nil) throws(MessageError) {
        if let name, object.field("client") == nil {
            client = name
        } else {
            client = try object.requireName("client")
        }
        let center = try Coordinate(from: object.requireObject("center"))
        let span = try object.requireObject("span")
        let latitudeDelta = try span.requireNumber("latitudeDelta")
        let longitudeDelta = try span.requireNumber("longitudeDelta")
        region = try Region(center: center, latitudeDelta: latitudeDelta, longitudeDelta: longitudeDelta)
        day = try object.optionalEnum("day", Day.self) ?? .today
        presentation = try Presentation(from: object)
        let limit = try object.optionalInt("limit") ?? Viewport.defaultLimit
        guard limit >= 1 && limit <= Viewport.maxLimit else { throw MessageError("limit \(limit) is outside [1, \(Viewport.maxLimit)]", code: .outOfRange) }
        self.limit = limit
        version = try object.optionalInt("version")
        if let version, version < 0 { throw MessageError("version \(version) must not be negative", code: .outOfRange) }
        if let version, version > Viewport.maxVersion { throw MessageError("version \(version) is over the limit of \(Viewport.maxVersion)", code: .outOfRange) }
        gateway = try object.optionalString("gateway")
        if gateway?.isEmpty == true { gateway = nil }
        ref = try object.optionalInt("ref")
        if let ref, ref < 0 { throw MessageError("ref \(ref) must not be negative", code: .outOfRange) }
    }

    public func write(to writer: inout JSONWriter) {
        writer.objectStart()
        writer.key("type"); writer.string("viewport")
        writer.key("client"); writer.string(client)
        writer.key("center"); region.center.write(to: &writer)
        writer.key("span")
        writer.objectStart()
        writer.key("latitudeDelta"); writer.number(region.latitudeDelta)
        writer.key("longitudeDelta"); writer.number(region.longitudeDelta)
        writer.objectEnd()
        writer.key("day"); writer.string(day.rawValue)
        presentation.write(to: &writer)
        writer.key("limit"); writer.int(limit)
        if let version { writer.key("version"); writer.int(version) }
        if let gateway { writer.key("gateway"); writer.string(gateway) }
        if let ref { writer.key("ref"); writer.int(ref) }
        writer.objectEnd()
        writer.newline()
    }
}
