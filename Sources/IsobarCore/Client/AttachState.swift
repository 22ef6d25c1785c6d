/// What a plain bus client (`isobar attach`) knows and decides, without the bus: its viewport,
/// the annotations it has applied, the latest answer of each kind, and how to react to each
/// message (re-announce, ask for a resync after a gap, print, redraw). `AttachSession` holds one
/// under its lock and carries out the reactions; the rules are unit-tested here
/// (`AttachStateTests`) apart from sockets and threads.
public struct AttachState: Sendable {
    /// Whether the filter has answered this client yet.
    public enum Phase: Sendable, Equatable {
        /// No `annotations` yet: the session re-announces (viewport + resync) on every tick, since
        /// a PUB that has just connected drops what it sends (ZeroMQ's slow joiner).
        case waitingForAnswer
        /// Annotations arrive; the heartbeat carries the applied version.
        case answered
    }

    /// What the session does after a message.
    public struct Reaction: Sendable, Equatable {
        /// Send the viewport and a resync again (a filter restarted and asked everyone).
        public var announce = false
        /// Ask for a full set, with this reason (a version gap).
        public var resync: String?
        /// In plain mode, print the message as received.
        public var print = false
        /// Something shown changed (the terminal map redraws).
        public var changed = false

        public init(announce: Bool = false, resync: String? = nil, print: Bool = false, changed: Bool = false) {
            self.announce = announce
            self.resync = resync
            self.print = print
            self.changed = changed
        }
    }

    public let client: String
    public private(set) var phase = Phase.waitingForAnswer
    public private(set) var viewport: Viewport?
    /// The set and its version rules (``AnnotationFollower``, shared with the app's library).
    private var follower = AnnotationFollower()
    public var annotations: AnnotationSet { follower.set }
    public private(set) var callout: [UInt8]?
    /// The latest `place`, `results` or `report` (answers to `nearest`, `search`, `detail`).
    public private(set) var found: [UInt8]?
    /// The latest `results` and `locations` (a search's stations and places: the terminal map's
    /// `/` asks for both and lists places first).
    public private(set) var results: [UInt8]?
    public private(set) var locations: [UInt8]?
    /// The latest `starred` list (this client's favorites).
    public private(set) var starred: [UInt8]?
    /// The latest `status` line.
    public private(set) var status: String?

    public init(client: String, viewport: Viewport?) {
        self.client = client
        self.viewport = viewport
    }

    /// The bus topics the client subscribes to: its own answers of every kind, its errors, and the
    /// broadcasts `resync` (ZeroMQ prefix matching: it also gets other clients' `resync/<name>`,
    /// which it ignores) and `status`.
    public var topics: [String] {
        MessageTypes.standard.clientSubscriptions(of: .attach, client: client)
    }

    /// Whether to re-announce on the next tick.
    public var isWaitingForAnswer: Bool { phase == .waitingForAnswer && viewport != nil }

    /// The viewport a heartbeat sends: without a version until the filter answered, then the
    /// version ``AnnotationFollower`` reports (the applied one, or 0 while a gap broke the set: the
    /// filter never sends 0, so it answers in full even if the resync asked for was lost too).
    /// Nil before any viewport.
    public var heartbeat: Viewport? {
        guard var viewport else { return nil }
        viewport.version = phase == .answered ? (follower.reportedVersion ?? 0) : nil
        return viewport
    }

    /// A pan, zoom or toggle.
    public mutating func update(_ viewport: Viewport) {
        self.viewport = viewport
    }

    /// Applies one message from the bus and says what to do about it.
    public mutating func receive(topic: String, payload: [UInt8]) -> Reaction {
        switch topic {
        case "resync":
            // A filter that (re)started asks everyone to re-announce; a client's own `resync` has
            // a `client` and is not for us.
            guard let object = try? JSONObject(storage: payload), (try? object.optionalString("client")) == nil else { return Reaction() }
            return Reaction(announce: true)
        case "status":
            status = String(decoding: payload, as: UTF8.self)
            return Reaction(changed: true)
        case "error/\(client)":
            // A stage refused something this client sent: say so.
            return Reaction(print: true)
        case "starred/\(client)":
            starred = payload
            return Reaction(print: true, changed: true)
        case "place/\(client)", "results/\(client)", "report/\(client)", "locations/\(client)", "vicinity/\(client)", "conditions/\(client)":
            found = payload
            if topic == "results/\(client)" { results = payload }
            if topic == "locations/\(client)" { locations = payload }
            return Reaction(print: true, changed: true)
        case "callout/\(client)":
            callout = payload
            return Reaction(print: true, changed: true)
        case "annotations/\(client)":
            guard let object = try? JSONObject(storage: payload) else { return Reaction() }
            phase = .answered
            // A message that is JSON but not valid annotations is printed and otherwise ignored.
            guard let message = try? Annotations(from: object) else { return Reaction(print: true) }
            // One resync per break (the follower's rule); the heartbeat reports 0 meanwhile.
            if case .gap(resync: true) = follower.apply(message) { return Reaction(resync: "version gap", print: true, changed: true) }
            return Reaction(print: true, changed: true)
        default:
            return Reaction()
        }
    }
}
