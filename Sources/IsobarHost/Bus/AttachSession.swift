import Foundation
import IsobarBus
import IsobarCore
import IsobarStdio
import Synchronization

/// One map client on the bus: keeps its viewport alive, applies annotations, detects gaps and asks
/// for a resync, and re-announces itself when the filter restarts.
///
/// Every `heartbeat` seconds it re-sends its viewport with the annotations version it has applied.
/// That is what recovers an answer lost anywhere on the way (a broker, plug or formatter restarting
/// while the client is idle): the filter sees the client is behind and resends the whole set.
///
/// Both schedules (the probe until the filter answers, the heartbeat) are timers of the bus
/// client's receive thread (`BusClient.every`), which already waits: no thread or sleep of their own.
///
/// `@unchecked Sendable`: `printMessages` and `onChange` are set before `start` and only read after;
/// every other mutable state is in a `Mutex`; the bus client is thread-safe.
public final class AttachSession: @unchecked Sendable {
    public let client: String
    private let bus: BusClient
    /// Everything the client knows and the rules for each message (pure; see `AttachState`).
    private let state: Mutex<AttachState>
    private let closed = Mutex(false)
    /// Signalled once the filter has answered (the state's phase never goes back).
    private let answered: WakePipe
    private let heartbeat: Double
    /// Print every annotations/callout/place/results/starred/report/error line on stdout (plain mode).
    public var printMessages = false
    /// Called (on the receive thread) after each applied message.
    public var onChange: (@Sendable () -> Void)?

    /// Seconds between heartbeats: with the filter's grace for answers in flight (0.25 s) and the
    /// bus reconnecting within a few hundred milliseconds, a lost answer is repaired within about a second.
    public static let defaultHeartbeat = 0.5

    public init(client: String, initial: Viewport?, heartbeat: Double = AttachSession.defaultHeartbeat, endpoints: BrokerEndpoints = .fromEnvironment()) throws {
        self.client = client
        self.heartbeat = heartbeat
        let state = AttachState(client: client, viewport: initial)
        bus = try BusClient(endpoints: endpoints, topics: state.topics)
        self.state = Mutex(state)
        guard let answered = WakePipe() else { throw ZMQError(operation: "pipe (attach's answer signal)", errno: EMFILE) }
        self.answered = answered
    }

    public func start() {
        // Until the filter has answered, re-send the viewport every probe interval: a PUB that has
        // just connected drops what it sends before the connection is up (ZeroMQ's slow joiner).
        bus.every(.milliseconds(Int64(max(0.001, min(0.25, heartbeat)) * 1000))) { [weak self] in
            guard let self, state.withLock({ $0.isWaitingForAnswer }) else { return }
            announce()
        }
        bus.every(.milliseconds(Int64(max(0.001, heartbeat) * 1000))) { [weak self] in self?.sendViewport() }
        if state.withLock({ $0.isWaitingForAnswer }) { announce() }
        bus.start { [weak self] topic, payload in self?.receive(topic: topic, payload: payload) }
    }

    /// Sends the viewport and asks for the full set (used at start and when the filter restarts).
    public func announce() {
        sendViewport()
        var writer = JSONWriter()
        Resync(client: client, reason: "attach").write(to: &writer)
        bus.publish(Array(writer.bytes.dropLast()))
    }

    /// Sends the viewport, with the version applied once the filter has answered.
    public func sendViewport() {
        let current = state.withLock { $0.heartbeat }
        guard let viewport = current else { return }
        var writer = JSONWriter()
        viewport.write(to: &writer)
        bus.publish(Array(writer.bytes.dropLast()))
    }

    /// Changes the viewport (pan, zoom, toggles) and sends it.
    public func update(_ viewport: Viewport) {
        state.withLock { $0.update(viewport) }
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
        if state.withLock({ $0.isWaitingForAnswer }) { answered.wait(timeout: .seconds(5)) }
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
            state.withLock { $0.update(viewport) }
        }
        bus.publish(line)
    }

    private func receive(topic: String, payload: [UInt8]) {
        let (reaction, phase) = state.withLock { ($0.receive(topic: topic, payload: payload), $0.phase) }
        if phase == .answered { answered.signal() }
        if reaction.announce { announce() }
        if reaction.print && printMessages {
            LineOutput.standardOutput.write(payload + [0x0A])
            LineOutput.standardOutput.flush()
        }
        if let reason = reaction.resync {
            var writer = JSONWriter()
            Resync(client: client, reason: reason).write(to: &writer)
            bus.publish(Array(writer.bytes.dropLast()))
        }
        if reaction.changed { onChange?() }
    }

    /// The latest answer to a `nearest` or `search` (a `place` or `results` line), if any.
    public var lastFindAnswer: [UInt8]? { state.withLock { $0.found } }

    /// The latest search answers: stations (`results`) and places (`locations`), if any came.
    public var lastSearch: (results: [UInt8]?, locations: [UInt8]?) { state.withLock { ($0.results, $0.locations) } }

    /// The latest favorites list (`starred`), if any came.
    public var lastFavorites: [UInt8]? { state.withLock { $0.starred } }

    /// Publishes one client-contract request the terminal map made (`write` is a message type's
    /// `write(to:)`: a `nearest`, `search`, `favorite` ...), without its line's newline.
    public func publish(_ write: (inout JSONWriter) -> Void) {
        var writer = JSONWriter()
        write(&writer)
        var line = writer.bytes
        if line.last == UInt8(ascii: "\n") { line.removeLast() }
        bus.publish(line)
    }

    /// A consistent copy of what the client shows.
    public func snapshot() -> (viewport: Viewport?, annotations: AnnotationSet, callout: [UInt8]?, status: String?) {
        state.withLock { ($0.viewport, $0.annotations, $0.callout, $0.status) }
    }

    public func close() {
        let wasClosed = closed.withLock { closed -> Bool in
            defer { closed = true }
            return closed
        }
        if !wasClosed { bus.close() }
    }
}
