import Foundation
import IsobarBusClient
import IsobarCore
import Logging
import NIOCore
import Synchronization

/// The gateway's shared state: its connections by client name, the ``LeaseBook``, what the filter
/// last said (``Tally``), and the bus.
///
/// Bus messages arrive on the bus client's receive thread and are handed to connections through
/// their bounded ``Outbox`` (never blocking that thread); frames from apps arrive on each
/// connection's event loop (``WebSocketConnectionHandler``). Every publish that carries a viewport `ref` happens under the lock, so a resend
/// burst and a new viewport of the same client can never leave in the wrong order.
public final class GatewayHub: @unchecked Sendable {
    // @unchecked: every shared mutable property is in `shared` (a Mutex); `pendingWakes` is the bus
    // thread's own; `bus` is thread-safe.
    public enum State: Sendable, Equatable { case running, stopping }

    /// What the connections' event loops and the bus thread share, only under the mutex.
    private struct Shared {
        var bus: BusClient?
        var state = State.running
        var connections: [String: GatewayConnection] = [:]
        /// The last `status` of each day, as it came: sent to each new connection, since a fetch writes
        /// one only when something happens and a page opened later would otherwise never learn which
        /// feeds are loaded (`formats`) or that one is failing (PROTOCOL.md "Gateway").
        var lastStatuses: [String: [UInt8]] = [:]
        /// Names accepted by an upgrade check whose connection has not registered yet, with the
        /// number of the claim (``GatewayHub/admit(target:authorization:origin:claim:)``).
        var claims: [String: UInt64] = [:]
        var nextClaim: UInt64 = 0
        /// Open TCP connections of every kind (``GatewayHub/openedTCPConnection()``).
        var tcpConnections = 0
        var book = LeaseBook()
        /// The latest tally of each filter shard (by index), for health; a layout change (another
        /// shard count) starts afresh.
        var lastTallies: [Int: (at: UInt64, tally: Tally)] = [:]
        /// When each filter shard (by index) last had its clients' viewports resent on its tally: one
        /// resend per shard per lease interval. Per shard, since the shards of a host that comes back ask
        /// together, and each asks only for its own clients.
        var lastResends: [Int: UInt64] = [:]
        /// What filter shard 0's tallies say its snapshot rule did (held back, refused, confirmed).
        var acceptance = AcceptanceWatch()
        /// Who waits in ``GatewayHub/connectionsClosed(within:)`` for the last connection to go.
        var closedWaiters: [CheckedContinuation<Void, Never>] = []

        /// Empties the waiters of `connectionsClosed` (resumed by the caller after the lock).
        mutating func takeClosedWaiters() -> [CheckedContinuation<Void, Never>] {
            defer { closedWaiters.removeAll() }
            return closedWaiters
        }
    }

    public let options: GatewayOptions
    public let metrics: GatewayMetrics
    let logger: Logger
    /// The WebSocket liveness check: one timer per event loop (``PingSweeper``).
    let sweepers: PingSweepers
    private let shared = Mutex(Shared())
    private let startedAt = GatewayHub.now()
    /// Connections the bus thread filled since its last drain, woken together in `busDrained`:
    /// one event-loop hop per loop per burst of bus messages. Touched only by the bus thread.
    private var pendingWakes: [GatewayConnection] = []

    /// Topics the gateway subscribes to. Prefixes: `annotations/` and `callout/` match every
    /// client's traffic, and topics are compared exactly on arrival (see PROTOCOL.md).
    /// Derived from the table of message types (what apps receive, and what the gateway consumes).
    public static let topics = MessageTypes.standard.clientSubscriptions(of: .gateway, client: "")

    /// Client-facing answers other than annotations, relayed to their client as they are.
    static let answerPrefixes = MessageTypes.standard.relayedPrefixes.filter { $0 != "annotations/" }

    public init(options: GatewayOptions, metrics: GatewayMetrics, logger: Logger) {
        self.options = options
        self.metrics = metrics
        self.logger = logger
        sweepers = PingSweepers(timing: options.pingTiming)
    }

    static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

    // MARK: - Bus

    /// Connects to the broker, starts relaying, and publishes this gateway's lease now and every
    /// lease interval after (a timer of the bus client's thread, which already waits).
    public func connectBus() throws {
        let bus = try BusClient(endpoints: options.endpoints, topics: Self.topics)
        shared.withLock { $0.bus = bus }
        bus.every(.milliseconds(Int64(max(0.001, options.leaseInterval) * 1000))) { [weak self] in self?.publishLease() }
        bus.start(onMessage: { [weak self] topic, payload in self?.receive(topic: topic, payload: payload) },
                  onDrained: { [weak self] in self?.busDrained() })
        publishLease()
    }

    public func closeBus() {
        let bus = shared.withLock { shared -> BusClient? in
            defer { shared.bus = nil }
            return shared.bus
        }
        bus?.close()
    }

    func receive(topic: String, payload: [UInt8]) {
        if topic.hasPrefix("annotations/") {
            relayAnnotations(client: String(topic.dropFirst("annotations/".count)), payload: payload)
        } else if let prefix = Self.answerPrefixes.first(where: { topic.hasPrefix($0) }) {
            let client = String(topic.dropFirst(prefix.count))
            guard let connection = shared.withLock({ $0.connections[client] }) else { return }
            deliver(payload, to: connection, fromBus: true)
        } else if topic == "status" {
            // Kept by day (a payload without a readable day is relayed, not kept).
            let day = (try? JSONObject(storage: payload)).flatMap { try? $0.optionalEnum("day", Day.self) }
            let all = shared.withLock { shared -> [GatewayConnection] in
                if let day { shared.lastStatuses[day.rawValue] = payload }
                return Array(shared.connections.values)
            }
            for connection in all { deliver(payload, to: connection, fromBus: true) }
        } else if topic == "tally" {
            receiveTally(payload)
        } else if topic == "resync" {
            // Only the bare topic: `resync/<client>` (another client's request) also matches the prefix.
            guard let object = try? JSONObject(storage: payload), let resync = try? Resync(from: object), resync.client == nil else { return }
            resendViewports(reason: "resync")
        }
    }

    private func relayAnnotations(client: String, payload: [UInt8]) {
        guard let connection = shared.withLock({ $0.connections[client] }) else { return }
        // Only the two numbers near the front are read; the message is relayed as it came.
        let numbers = JSONLeadingNumbers.read(payload, ["version", "ageSeconds", "full"])
        let now = Self.now()
        shared.withLock { shared in
            if let version = numbers[0], version >= 0, version < 9e15 {
                shared.book.relayed(client, version: Int(version), full: numbers[2] != 0)
            }
            if let started = connection.viewportAt {
                metrics.updateLatency.recordNanoseconds(Int64(now &- started))
                connection.viewportAt = nil
            }
        }
        if let age = numbers[1] { metrics.dataAge.record(age) }
        deliver(payload, to: connection, fromBus: true)
    }

    /// The bus thread handed out every message that was waiting: one hop per event loop drains
    /// every connection it filled.
    func busDrained() {
        guard !pendingWakes.isEmpty else { return }
        var byLoop: [(loop: any EventLoop, connections: [GatewayConnection])] = []
        for connection in pendingWakes {
            if let k = byLoop.firstIndex(where: { $0.loop === connection.eventLoop }) {
                byLoop[k].connections.append(connection)
            } else {
                byLoop.append((connection.eventLoop, [connection]))
            }
        }
        pendingWakes.removeAll(keepingCapacity: true)
        for (loop, connections) in byLoop {
            loop.execute { for connection in connections { connection.drainOnLoop() } }
        }
    }

    private func receiveTally(_ payload: [UInt8]) {
        guard let object = try? JSONObject(storage: payload), let tally = try? Tally(from: object),
              tally.gateway == options.name else { return }
        let now = Self.now()
        let resend = shared.withLock { shared -> Bool in
            if shared.lastTallies.values.contains(where: { $0.tally.shard.count != tally.shard.count }) {
                shared.lastTallies = [:]
                shared.lastResends = [:]
            }
            shared.lastTallies[tally.shard.index] = (now, tally)
            if tally.shard.index == 0, let report = tally.acceptance { noteAcceptance(report, in: &shared.acceptance) }
            guard tally.resend, Double(now &- (shared.lastResends[tally.shard.index] ?? 0)) / 1e9 >= options.leaseInterval else { return false }
            shared.lastResends[tally.shard.index] = now
            return true
        }
        if resend { resendViewports(reason: "tally", shard: tally.shard) }
    }

    /// Counts and logs what the filter's snapshot rule did since its last tally (under the lock).
    private func noteAcceptance(_ report: AcceptanceReport, in acceptance: inout AcceptanceWatch) {
        let (growth, events) = acceptance.observe(report)
        metrics.snapshots(growth, held: report.holds.count)
        for event in events {
            switch event {
            case .warning(let text): logger.warning("\(text)")
            case .notice(let text): logger.notice("\(text)")
            }
        }
    }

    /// Publishes every client's current viewport again (same `ref`, `version` = last relayed) in one
    /// burst: the repair after a filter restart (bare `resync`) or a lease that did not add up (tally).
    /// A tally's request concerns only the clients its filter shard owns (`shard`).
    func resendViewports(reason: String, shard: Shard = .whole) {
        shared.withLock { shared in
            guard let bus = shared.bus else { return }
            var lines: [[UInt8]] = []
            lines.reserveCapacity(shared.connections.count)
            for connection in shared.connections.values {
                guard var viewport = connection.viewport else { continue }
                if !shard.isWhole, let partition = shared.book.partition(of: connection.name), !shard.owns(partition: partition) { continue }
                // A version no stage would take back (over `Viewport.maxVersion`) asks for a full set instead.
                let relayed = shared.book.version(of: connection.name)
                viewport.version = relayed <= Viewport.maxVersion ? relayed : 0
                var writer = JSONWriter()
                viewport.write(to: &writer)
                writer.bytes.removeLast()
                lines.append(writer.bytes)
            }
            if !lines.isEmpty {
                bus.publish(lines: lines)
                logger.debug("resent viewports", metadata: ["count": "\(lines.count)", "reason": "\(reason)"])
            }
        }
    }

    /// Publishes this gateway's lease (clients and digest).
    func publishLease() {
        shared.withLock { shared in
            guard let bus = shared.bus else { return }
            var writer = JSONWriter()
            let book = shared.book
            Lease(gateway: options.name, clients: book.count, digest: book.digest.hex, partitions: book.partitions).write(to: &writer)
            writer.bytes.removeLast()
            bus.publish(writer.bytes)
        }
    }

    // MARK: - Connections

    /// Whether a WebSocket request may connect, and as whom.
    ///
    /// With `claim` (the upgrade check) an accepted name is claimed until the connection registers
    /// or `releaseClaim` is called with the returned claim number (when the upgrade's channel
    /// closes): two simultaneous upgrades with one name cannot both pass the check, so the loser
    /// gets its 409 before the upgrade instead of a 101 and a close.
    public func admit(target: String, authorization: String?, origin: String?,
                      claim: Bool = false) -> (decision: Admission.Decision, claim: UInt64?) {
        shared.withLock { shared in
            let (connections, claims) = (shared.connections, shared.claims)
            let decision = Admission.decide(target: target, authorization: authorization, origin: origin, options: options,
                                            connections: connections.count + claims.count, stopping: shared.state == .stopping,
                                            isTaken: { connections[$0] != nil || claims[$0] != nil })
            guard claim, case .accept(let name) = decision else { return (decision, nil) }
            shared.nextClaim += 1
            shared.claims[name] = shared.nextClaim
            return (decision, shared.nextClaim)
        }
    }

    /// Drops a claim that did not become a connection (the upgrade failed, the peer went away).
    func releaseClaim(name: String, claim: UInt64) {
        shared.withLock { shared in
            if shared.claims[name] == claim { shared.claims[name] = nil }
        }
    }

    /// Adds a connection; nil when the name was taken meanwhile, the gateway is full or stopping.
    func register(name: String, eventLoop: any EventLoop, drainOnLoop: @escaping @Sendable () -> Void,
                  sendClose: @escaping @Sendable (Outbox.Close) -> Void) -> GatewayConnection? {
        let connection = GatewayConnection(name: name, queueCapacity: options.maxQueue, eventLoop: eventLoop,
                                           drainOnLoop: drainOnLoop, sendClose: sendClose)
        let added = shared.withLock { shared -> [[UInt8]]? in
            guard shared.state == .running, shared.connections[name] == nil, shared.connections.count < options.maxConnections else { return nil }
            shared.claims[name] = nil
            shared.connections[name] = connection
            shared.book.add(name)
            return shared.lastStatuses.sorted { $0.key < $1.key }.map(\.value)
        }
        guard let statuses = added else { return nil }
        for status in statuses { deliver(status, to: connection) }
        metrics.connections.increment()
        logger.info("client connected", metadata: ["client": "\(name)"])
        return connection
    }

    /// Removes a connection and tells the filter the client is gone (`leave`).
    func unregister(_ connection: GatewayConnection) {
        let (removed, waiters) = shared.withLock { shared -> (Bool, [CheckedContinuation<Void, Never>]) in
            guard shared.connections[connection.name] === connection else { return (false, []) }
            shared.connections[connection.name] = nil
            shared.book.remove(connection.name)
            if let bus = shared.bus {
                var writer = JSONWriter()
                Leave(client: connection.name).write(to: &writer)
                writer.bytes.removeLast()
                bus.publish(writer.bytes)
            }
            return (true, shared.connections.isEmpty ? shared.takeClosedWaiters() : [])
        }
        for waiter in waiters { waiter.resume() }
        guard removed else { return }
        metrics.connections.decrement()
        let reason = connection.outbox.closeRequest?.reason ?? "closed by the client"
        logger.info("client disconnected", metadata: ["client": "\(connection.name)", "reason": "\(reason)"])
    }

    public var connectionCount: Int { shared.withLock { $0.connections.count } }

    /// Returns once no connection is left (each one's `leave` published), or after `limit`,
    /// whichever is first: the shutdown's wait for clients answering the close frame.
    public func connectionsClosed(within limit: Duration) async {
        let deadline = Task { [weak self] in
            guard (try? await Task.sleep(for: limit)) != nil, let self else { return }
            for waiter in shared.withLock({ $0.takeClosedWaiters() }) { waiter.resume() }
        }
        defer { deadline.cancel() }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = shared.withLock { shared -> Bool in
                guard !shared.connections.isEmpty else { return true }
                shared.closedWaiters.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }

    /// Counts a new TCP connection; false when it is one over `--max-connections` (it is counted
    /// all the same, until `closedTCPConnection`, since it holds a descriptor while it is refused).
    func openedTCPConnection() -> Bool {
        metrics.openConnections.increment()
        return shared.withLock { shared in
            shared.tcpConnections += 1
            return shared.tcpConnections <= options.maxConnections
        }
    }

    func closedTCPConnection() {
        metrics.openConnections.decrement()
        shared.withLock { $0.tcpConnections -= 1 }
    }

    /// Queues a frame for a client.
    func deliver(_ text: String, to connection: GatewayConnection) { deliver(Array(text.utf8), to: connection) }

    /// Queues a frame (its UTF-8 bytes) for a client; a full queue disconnects it (close 1013),
    /// never grows. `fromBus`: called on the bus thread, which wakes the connection's loop when
    /// the burst it is handling ends (`busDrained`).
    func deliver(_ text: [UInt8], to connection: GatewayConnection, fromBus: Bool = false) {
        switch connection.outbox.push(text) {
        case .queuedWake:
            if fromBus { pendingWakes.append(connection) } else { connection.wake() }
        case .queued, .finished:
            break
        case .full:
            metrics.error(.slowReader)
            close(connection, code: GatewayCloseCode.slowReader, reason: "outbound queue full (\(options.maxQueue) messages): reading too slowly")
        }
    }

    /// Ends a connection with a close code (frames still queued are dropped). A client that does
    /// not read never gets the close frame out of a full socket, so its handler drops the TCP
    /// connection after 2 s if it is still open.
    func close(_ connection: GatewayConnection, code: UInt16, reason: String) {
        let request = Outbox.Close(code: code, reason: reason)
        guard connection.outbox.finish(request) else { return }
        logger.info("closing client", metadata: ["client": "\(connection.name)", "code": "\(code)", "reason": "\(reason)"])
        connection.sendClose(request)
    }

    /// Stops admitting clients and closes every connection with 1001 (going away).
    public func beginShutdown() {
        let all = shared.withLock { shared -> [GatewayConnection] in
            shared.state = .stopping
            return Array(shared.connections.values)
        }
        for connection in all { close(connection, code: GatewayCloseCode.goingAway, reason: "gateway shutting down") }
    }

    // MARK: - Frames from apps

    /// Handles one text message from an app: publishes it, or returns the `error` line to send back.
    func receiveFrame(_ bytes: [UInt8], from connection: GatewayConnection) -> String? {
        metrics.framesIn.increment()
        guard bytes.count <= options.maxFrame else {
            metrics.error(.tooLarge)
            return errorLine("message of \(bytes.count) bytes is over the limit of \(options.maxFrame) bytes", bytes, code: .lineTooLong)
        }
        let frame: ClientFrame
        do {
            frame = try ClientFrame.parse(bytes, client: connection.name)
        } catch {
            metrics.error(.badFrame)
            return errorLine(error.message, bytes, code: error.code)
        }
        let now = Self.now()
        shared.withLock { shared in
            guard let bus = shared.bus else { return }
            switch frame {
            case .viewport(var viewport):
                viewport.gateway = options.name
                viewport.ref = shared.book.nextRef(connection.name)
                if viewport.version == nil {
                    let relayed = shared.book.version(of: connection.name)
                    if relayed > 0 && relayed <= Viewport.maxVersion { viewport.version = relayed }
                }
                connection.viewport = viewport
                if connection.viewportAt == nil { connection.viewportAt = now }
                var writer = JSONWriter()
                viewport.write(to: &writer)
                writer.bytes.removeLast()
                bus.publish(ownLine: writer.bytes)
            case .line(let line):
                bus.publish(line)
            }
        }
        return nil
    }

    func errorLine(_ message: String, _ bytes: [UInt8], code: ErrorCode = .invalid) -> String {
        bytes.withUnsafeBytes { ErrorMessage(stage: "gateway", message: message, line: $0, code: code).jsonLine }
    }

    // MARK: - Health

    /// What `/healthz` answers (PROTOCOL.md, "HTTP"): ``down`` (503) unless every filter shard (one
    /// when not sharded) answered a lease within the last 3 lease intervals and holds at least one
    /// snapshot; ``degraded`` (200, the reason) while the filter holds back an implausible snapshot;
    /// else ``ok``.
    public enum Health: Sendable, Equatable {
        case ok
        case degraded(String)
        case down(String)
    }

    public func health() -> Health {
        let now = Self.now()
        return shared.withLock { shared in
            let (lastTallies, acceptance) = (shared.lastTallies, shared.acceptance)
            let window = 3 * options.leaseInterval
            let shards = lastTallies.values.first?.tally.shard.count ?? 1
            for index in 0..<shards {
                let name = shards == 1 ? "the filter" : "filter shard \(index)/\(shards)"
                guard let last = lastTallies[index], Double(now &- last.at) / 1e9 <= window else {
                    let since = Double(now &- (lastTallies[index]?.at ?? startedAt)) / 1e9
                    return .down("no tally from \(name) for \(Int(since.rounded())) s: broker or filter down")
                }
                guard last.tally.today != nil || last.tally.tomorrow != nil else {
                    return .down("\(name) has no snapshot yet")
                }
            }
            if let reason = acceptance.degradedReason { return .degraded(reason) }
            return .ok
        }
    }
}
