import Foundation
import IsobarCore
import IsobarStdio

/// One map client on the bus: keeps its viewport alive, applies annotations, detects gaps and asks
/// for a resync, and re-announces itself when the filter restarts.
///
/// Every `heartbeat` seconds it re-sends its viewport with the annotations version it has applied.
/// That is what recovers an answer lost anywhere on the way (a broker, plug or formatter restarting
/// while the client is idle): the filter sees the client is behind and resends the whole set.
///
/// `@unchecked Sendable`: mutable state is only touched under `lock`; the bus client is thread-safe.
public final class AttachSession: @unchecked Sendable {
    public let client: String
    private let bus: BusClient
    private let lock = NSLock()
    private var viewport: Viewport?
    private var annotations = AnnotationSet()
    private var lastCallout: [UInt8]?
    /// The latest `place` or `results` answer (a `nearest` or `search` this client sent).
    private var lastFound: [UInt8]?
    private var lastStatus: String?
    /// The latest `starred` list (this client's favorites).
    private var lastStarred: [UInt8]?
    private var answered = false
    private var closed = false
    private let heartbeat: Double
    /// Print every annotations/callout/place/results/starred/report line on stdout (plain mode).
    public var printMessages = false
    /// Called (on the receive thread) after each applied message.
    public var onChange: (@Sendable () -> Void)?

    /// Seconds between heartbeats: with the filter's grace for answers in flight (0.25 s) and the
    /// bus reconnecting within a few hundred milliseconds, a lost answer is repaired within about a second.
    public static let defaultHeartbeat = 0.5

    public init(client: String, initial: Viewport?, heartbeat: Double = AttachSession.defaultHeartbeat, endpoints: BrokerEndpoints = .fromEnvironment()) throws {
        self.client = client
        self.heartbeat = heartbeat
        self.viewport = initial
        // `place/`, `results/` and `starred/` answer `nearest`, `search` and `favorite` (PROTOCOL.md, "Find");
        // `report/` answers `detail`.
        bus = try BusClient(endpoints: endpoints, topics: ["annotations/\(client)", "callout/\(client)", "place/\(client)",
                                                           "results/\(client)", "starred/\(client)", "report/\(client)", "error/\(client)",
                                                           "resync", "status"])
    }

    public func start() {
        bus.start { [weak self] topic, payload in self?.receive(topic: topic, payload: payload) }
        // Until the filter has answered, re-send the viewport: a PUB that has just connected drops
        // what it sends before the connection is up (ZeroMQ's slow joiner).
        let probe = Thread { [weak self] in
            var sinceHeartbeat = 0.0
            let tick = min(0.25, self?.heartbeat ?? 0.25)
            while let self, !self.isClosed {
                let waiting = self.lock.withLock { !self.answered && self.viewport != nil }
                if waiting { self.announce() }
                Thread.sleep(forTimeInterval: tick)
                sinceHeartbeat += tick
                if sinceHeartbeat >= self.heartbeat {
                    sinceHeartbeat = 0
                    self.sendViewport()
                }
            }
        }
        probe.start()
    }

    private var isClosed: Bool { lock.withLock { closed } }

    /// Sends the viewport and asks for the full set (used at start and when the filter restarts).
    public func announce() {
        sendViewport()
        var writer = JSONWriter()
        Resync(client: client, reason: "attach").write(to: &writer)
        bus.publish(Array(writer.bytes.dropLast()))
    }

    /// Sends the viewport, with the version applied once the filter has answered.
    public func sendViewport() {
        // A set broken by a gap reports version 0, which the filter never sends: the heartbeat then
        // repairs it even when the resync asked for at the gap was lost too.
        let current = lock.withLock { () -> Viewport? in
            var viewport = self.viewport
            viewport?.version = answered ? (annotations.broken ? 0 : annotations.version) : nil
            return viewport
        }
        guard let viewport = current else { return }
        var writer = JSONWriter()
        viewport.write(to: &writer)
        bus.publish(Array(writer.bytes.dropLast()))
    }

    /// Changes the viewport (pan, zoom, toggles) and sends it.
    public func update(_ viewport: Viewport) {
        lock.withLock { self.viewport = viewport }
        sendViewport()
    }

    public func select(_ id: String?) {
        var writer = JSONWriter()
        Select(client: client, id: id).write(to: &writer)
        bus.publish(Array(writer.bytes.dropLast()))
    }

    /// Publishes a client-contract line read from stdin, filling in `client` when missing.
    public func publishFromInput(_ raw: UnsafeRawBufferPointer) {
        // Hold input until the filter knows this client (its first answer), at most 5 s, so a
        // `select` typed right after start is not refused for want of a viewport.
        for _ in 0..<100 where lock.withLock({ !answered && viewport != nil }) {
            Thread.sleep(forTimeInterval: 0.05)
        }
        guard let object = try? JSONObject(parsing: raw), let typeField = object.field("type"), let type = object.string(typeField) else {
            FileHandle.standardError.write(Data("attach: skipped a line that is not a JSON object with a type: \(LineSplitter.excerpt(raw))\n".utf8))
            return
        }
        var line = Array(object.rawBytes)
        if object.field("client") == nil, line.first == UInt8(ascii: "{") {
            var member = JSONWriter()
            member.key("client")
            member.string(client)
            line.insert(contentsOf: member.bytes + (object.fields.isEmpty ? [] : [UInt8(ascii: ",")]), at: 1)
        }
        if type == "viewport", let parsed = try? JSONObject(storage: line), let viewport = try? Viewport(from: parsed) {
            lock.withLock { self.viewport = viewport }
        }
        bus.publish(line)
    }

    private func receive(topic: String, payload: [UInt8]) {
        if topic == "resync" {
            // A filter that (re)started asks everyone to re-announce.
            if let object = try? JSONObject(storage: payload), (try? object.optionalString("client")) == nil {
                announce()
            }
            return
        }
        if topic == "status" {
            lock.withLock { lastStatus = String(decoding: payload, as: UTF8.self) }
            onChange?()
            return
        }
        if topic == "error/\(client)" {
            // A stage refused something this client sent: say so (NDJSON mode prints it as is).
            if printMessages { LineOutput.standardOutput.write(payload + [0x0A]); LineOutput.standardOutput.flush() }
            return
        }
        if topic == "starred/\(client)" {
            lock.withLock { lastStarred = payload }
            if printMessages { LineOutput.standardOutput.write(payload + [0x0A]); LineOutput.standardOutput.flush() }
            onChange?()
            return
        }
        if topic == "place/\(client)" || topic == "results/\(client)" || topic == "report/\(client)" {
            lock.withLock { lastFound = payload }
            if printMessages { LineOutput.standardOutput.write(payload + [0x0A]); LineOutput.standardOutput.flush() }
            onChange?()
            return
        }
        if topic == "callout/\(client)" {
            lock.withLock { lastCallout = payload }
            if printMessages { LineOutput.standardOutput.write(payload + [0x0A]); LineOutput.standardOutput.flush() }
            onChange?()
            return
        }
        guard topic == "annotations/\(client)", let object = try? JSONObject(storage: payload) else { return }
        let outcome = lock.withLock { () -> AnnotationSet.Outcome? in
            answered = true
            return try? annotations.apply(object)
        }
        if printMessages { LineOutput.standardOutput.write(payload + [0x0A]); LineOutput.standardOutput.flush() }
        if case .gap = outcome {
            var writer = JSONWriter()
            Resync(client: client, reason: "version gap").write(to: &writer)
            bus.publish(Array(writer.bytes.dropLast()))
        }
        onChange?()
    }

    /// The latest answer to a `nearest` or `search` (a `place` or `results` line), if any.
    public var lastFindAnswer: [UInt8]? { lock.withLock { lastFound } }

    /// The latest favorites list (`starred`), if any came.
    public var lastFavorites: [UInt8]? { lock.withLock { lastStarred } }

    /// Publishes one client-contract line built here (a `nearest`, `search` or `favorite` from the
    /// terminal map), with this client's name.
    public func publish(type: String, _ members: (inout JSONWriter) -> Void) {
        var writer = JSONWriter()
        writer.objectStart()
        writer.key("type"); writer.string(type)
        writer.key("client"); writer.string(client)
        members(&writer)
        writer.objectEnd()
        bus.publish(writer.bytes)
    }

    /// A consistent copy of what the client shows.
    public func snapshot() -> (viewport: Viewport?, annotations: AnnotationSet, callout: [UInt8]?, status: String?) {
        lock.withLock { (viewport, annotations, lastCallout, lastStatus) }
    }

    public func close() {
        let wasClosed = lock.withLock { () -> Bool in
            defer { closed = true }
            return closed
        }
        if !wasClosed { bus.close() }
    }
}
