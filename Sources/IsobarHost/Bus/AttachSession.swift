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
    /// Signalled once the filter has answered (the state's phase never goes back) and the held input sent.
    private let answered: WakePipe
    /// Input lines (with whether each is a viewport) held until the filter's first answer; sent in order.
    private let held = Mutex<[(line: [UInt8], isViewport: Bool)]>([])
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

    /// Publishes a client-contract line read from stdin, filling in `client` when missing. Until the
    /// filter knows this client (its first answer) the line is held, not sent, so a `select` typed
    /// right after start is not refused for want of a viewport; the first answer sends what is held,
    /// in order. Never blocks the input loop: a stop ends it at once.
    public func publishFromInput(_ raw: UnsafeRawBufferPointer) {
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
        let isViewport = type == "viewport"
        let dropped = held.withLock { held -> Bool in
            guard held.isEmpty, !state.withLock({ $0.isWaitingForAnswer }) else {
                guard held.count < Self.heldLimit else { return true }
                held.append((line, isViewport))
                return false
            }
            send(line, isViewport: isViewport)
            return false
        }
        if dropped {
            FileHandle.standardError.write(Data("attach: skipped an input line: \(Self.heldLimit) lines already wait for the filter's first answer\n".utf8))
        }
    }

    /// Most input lines held until the filter's first answer; more are skipped with a message.
    public static let heldLimit = 1000

    /// The number of input lines held until the filter's first answer.
    public var heldInput: Int { held.withLock { $0.count } }

    /// At end of input: waits until the lines held for the filter's first answer are sent (the answer
    /// came), a stop, or `timeout` seconds, whichever is first. After the timeout it sends them anyway
    /// (the filter may answer later) and says so on stderr; returns whether the answer came in time.
    @discardableResult
    public func finishInput(stop: StopFlag, timeout: Double = AttachSession.firstAnswerTimeout) -> Bool {
        guard heldInput > 0 else { return true }
        // timer: the filter's first-answer deadline is the purpose; its answer or a stop ends it at once.
        switch stop.wait(readable: answered.readFD, timeout: timeout) {
        case .readable: return true
        case .stopped: return false
        case .timedOut: break
        }
        let count = held.withLock { held -> Int in
            defer { held.removeAll() }
            for (line, isViewport) in held { send(line, isViewport: isViewport) }
            return held.count
        }
        if count > 0 {
            FileHandle.standardError.write(Data("attach: no answer from the filter in \(timeout) s; sent the \(count) held input lines anyway\n".utf8))
        }
        return count == 0
    }

    /// Seconds ``finishInput(stop:timeout:)`` waits for the filter's first answer at end of input.
    public static let firstAnswerTimeout = 5.0

    /// Publishes one input line (prepared by ``publishFromInput(_:)``), applying a viewport to the state.
    private func send(_ line: [UInt8], isViewport: Bool) {
        if isViewport, let parsed = try? JSONObject(storage: line), let viewport = try? Viewport(from: parsed) {
            state.withLock { $0.update(viewport) }
        }
        bus.publish(line)
    }

    private func receive(topic: String, payload: [UInt8]) {
        let (reaction, phase) = state.withLock { ($0.receive(topic: topic, payload: payload), $0.phase) }
        if phase == .answered {
            // Send what input held for the first answer, in order, before any later input line.
            held.withLock { held in
                for (line, isViewport) in held { send(line, isViewport: isViewport) }
                held.removeAll()
            }
            answered.signal()
        }
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
