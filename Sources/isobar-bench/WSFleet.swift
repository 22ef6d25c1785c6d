import Foundation
import IsobarCore
import Synchronization
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket

/// Many WebSocket map clients in this process, for the gateway benchmark: each connects to `/ws`,
/// sends its first viewport and waits for its first `annotations`; a panning client then walks its
/// plan one viewport at a time (closed loop: the next leaves when the answer with the expected
/// version arrived), one walk per `go(steps:)`.
///
/// Each client is a NIO channel handler (``WSBenchClient``) on NIO's HTTP client upgrade, with no
/// task per connection, so that 10,000 of them cost this process (which shares the 2 cores with
/// the pipeline it measures) as little as a client can: a frame is read, its `version` found
/// without a full parse, the next viewport written.
///
/// `@unchecked Sendable`: the shared counters live in `state` (a `Mutex`); each client's walk
/// state is touched only on its own event loop. A waiting task is woken through `changes` when a
/// counter it may be waiting for moves: on every connection event, and on steps only when the
/// count it waits for is reached (not 20,000 times a second on the cores being measured).
final class WSFleet: @unchecked Sendable {
    struct Step: Sendable {
        let text: String
        let version: Int
    }

    /// The counters every client updates.
    private struct State {
        var connected = 0
        var closed = 0
        var pings = 0
        var pongs = 0
        var failed: [String] = []
        var latencies: [Double] = []
        var stepsDone = 0
        var gaps = 0
        var goes: [@Sendable (Range<Int>) -> Void] = []
    }

    private let state = Mutex(State())
    private let changes = Changes()
    /// The step count a waiting task waits for (`Int.max`: none): `stepped` wakes it at that count.
    private let stepTarget = Atomic<Int>(.max)
    private let port: Int
    private let group: MultiThreadedEventLoopGroup

    init(port: Int, threads: Int = 1) {
        self.port = port
        group = MultiThreadedEventLoopGroup(numberOfThreads: threads)
    }

    var connectedCount: Int { state.withLock { $0.connected } }
    var failures: [String] { state.withLock { $0.failed } }
    var completedSteps: Int { state.withLock { $0.stepsDone } }
    var versionGaps: Int { state.withLock { $0.gaps } }
    var latencies: [Double] { state.withLock { $0.latencies } }
    /// Connections that closed after their first answer (the gateway dropped them, or they failed).
    var closedCount: Int { state.withLock { $0.closed } }
    /// Pings received (and answered with a pong) from the gateway, all clients together.
    var pingsAnswered: Int { state.withLock { $0.pings } }
    /// Unsolicited pongs (keepalives) received from the gateway, all clients together; none is answered.
    var keepalivesReceived: Int { state.withLock { $0.pongs } }

    /// Connects one client that sends `first` and then only listens (an idle map).
    func connectIdle(name: String, first: String) {
        start(name: name, first: first, plan: [])
    }

    /// Connects one client that sends `plan[0...]` when told to (`go`), one step per answer.
    func connectPanning(name: String, first: String, plan: [Step]) {
        start(name: name, first: first, plan: plan)
    }

    /// Lets every panning client walk steps `range` of its plan.
    func go(steps range: Range<Int>) {
        for go in state.withLock({ $0.goes }) { go(range) }
    }

    /// Waits until `condition` holds (checked again whenever a connection counter moves) or
    /// `seconds` pass (a guard against a hang).
    @discardableResult
    func wait(seconds: Double, until condition: () -> Bool) async -> Bool {
        await changes.wait(seconds: seconds, until: condition)
    }

    /// Waits until `count` steps are done in all, or `seconds` pass.
    @discardableResult
    func wait(seconds: Double, forSteps count: Int) async -> Bool {
        stepTarget.store(count, ordering: .sequentiallyConsistent)
        let done = await wait(seconds: seconds) { completedSteps >= count }
        stepTarget.store(.max, ordering: .sequentiallyConsistent)
        return done
    }

    func resetLatencies() {
        state.withLock { $0.latencies.removeAll(keepingCapacity: true) }
    }

    private func start(name: String, first: String, plan: [Step]) {
        let path = "/ws?client=" + name, port = port
        let bootstrap = ClientBootstrap(group: group).channelInitializer { channel in
            channel.eventLoop.makeCompletedFuture {
                let client = NIOLoopBound(WSBenchClient(fleet: self, first: first, plan: plan), eventLoop: channel.eventLoop)
                if !plan.isEmpty {
                    let loop = channel.eventLoop
                    self.state.withLock { $0.goes.append { range in loop.execute { client.value.walk(range) } } }
                }
                let upgrader = NIOWebSocketClientUpgrader(
                    maxFrameSize: 1 << 24,
                    upgradePipelineHandler: { channel, _ in
                        channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(client.value) }
                    })
                // Upgraded: the request handler steps aside for the WebSocket frames.
                let upgrade: NIOHTTPClientUpgradeConfiguration = (upgraders: [upgrader], completionHandler: { context in
                    context.pipeline.removeHandler(name: "upgrade-request", promise: nil)
                })
                try channel.pipeline.syncOperations.addHTTPClientHandlers(withClientUpgrade: upgrade)
                try channel.pipeline.syncOperations.addHandler(UpgradeRequest(path: path, port: port), name: "upgrade-request")
            }
        }
        bootstrap.connect(host: "127.0.0.1", port: port).whenFailure { error in
            self.fail(name, error)
        }
    }

    func fail(_ name: String, _ error: any Error) { count { $0.failed.append("\(name): \(error)") } }
    func answered() { count { $0.connected += 1 } }
    func closedAfterAnswer() { count { $0.closed += 1 } }
    /// Counted without waking the waiting task: a sweep pings thousands of clients at once.
    func pinged() {
        state.withLock { $0.pings += 1 }
    }
    /// An unsolicited pong (the gateway's keepalive), counted like a ping.
    func keptAlive() {
        state.withLock { $0.pongs += 1 }
    }
    /// One step answered. The waiting task is woken only once the count it waits for is reached.
    func stepped(seconds: Double, gap: Bool) {
        let done = state.withLock { state in
            state.latencies.append(seconds)
            state.stepsDone += 1
            if gap { state.gaps += 1 }
            return state.stepsDone
        }
        if done >= stepTarget.load(ordering: .sequentiallyConsistent) { changes.pulse() }
    }

    private func count(_ change: (inout State) -> Void) {
        state.withLock { change(&$0) }
        changes.pulse()
    }

    /// The `version` of an `annotations` frame, read without a full parse (nil for other frames).
    static func version(in bytes: ByteBufferView) -> Int? {
        let prefix = #"{"type":"annotations""#.utf8
        guard bytes.starts(with: prefix) else { return nil }
        let key = Array(#""version":"#.utf8)
        var index = bytes.startIndex
        while let start = bytes[index...].firstIndex(of: key[0]) {
            if bytes[start...].starts(with: key) {
                var value = 0
                for byte in bytes[(start + key.count)...] {
                    guard byte >= 48 && byte <= 57 else { break }
                    value = value * 10 + Int(byte - 48)
                }
                return value
            }
            index = start + 1
        }
        return nil
    }
}

/// Sends the upgrade request (`GET /ws?client=NAME`) once connected; NIO's upgrader adds the
/// WebSocket headers and, on the 101, replaces the HTTP handlers with the WebSocket codec.
private final class UpgradeRequest: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundOut = HTTPClientRequestPart
    let path: String
    let port: Int

    init(path: String, port: Int) {
        self.path = path
        self.port = port
    }

    func channelActive(context: ChannelHandlerContext) {
        var headers = HTTPHeaders()
        headers.add(name: "Host", value: "127.0.0.1:\(port)")
        headers.add(name: "Content-Length", value: "0")
        context.write(wrapOutboundOut(.head(HTTPRequestHead(version: .http1_1, method: .GET, uri: path, headers: headers))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        // Only a refused upgrade gets here (the 101 is consumed by the upgrader).
        if case .head(let head) = unwrapInboundIn(data) {
            context.fireErrorCaught(WSBenchClient.Refused(status: Int(head.status.code)))
            context.close(promise: nil)
        }
    }
}

/// One benchmark client on its event loop: first viewport, first answer, then (panning) one step
/// per answer with the expected version.
private final class WSBenchClient: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    struct Refused: Error { let status: Int }

    enum Phase { case connecting, answered, walking }

    private let fleet: WSFleet
    private let first: String
    private let plan: [WSFleet.Step]
    private var phase = Phase.connecting
    private var context: ChannelHandlerContext?
    /// The plan's versions were computed for a client whose first answer was version 1.
    private var offset = 0
    private var steps: Range<Int> = 0..<0
    private var sentAt: UInt64 = 0

    init(fleet: WSFleet, first: String, plan: [WSFleet.Step]) {
        self.fleet = fleet
        self.first = first
        self.plan = plan
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        send(first)
    }

    func handlerRemoved(context: ChannelHandlerContext) { self.context = nil }

    func channelInactive(context: ChannelHandlerContext) {
        if phase != .connecting { fleet.closedAfterAnswer() }
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        fleet.fail("client", error)
        context.close(promise: nil)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.opcode {
        case .ping:
            fleet.pinged()
            context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .pong, maskKey: .random(), data: frame.unmaskedData)), promise: nil)
        case .pong:
            fleet.keptAlive()
        case .connectionClose:
            // As a browser does (RFC 6455 5.5.1): the close is echoed, then the connection closes, so a
            // gateway stopping does not wait out its close timeout for a fleet that stopped reading.
            context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .connectionClose, maskKey: .random(), data: frame.unmaskedData)), promise: nil)
            context.close(promise: nil)
        case .text:
            guard let version = WSFleet.version(in: frame.data.readableBytesView) else { return }
            switch phase {
            case .connecting:
                phase = .answered
                offset = version - 1
                fleet.answered()
            case .answered:
                break
            case .walking:
                guard let step = steps.first else { return }
                let expected = plan[step].version + offset
                guard version >= expected else { return }
                fleet.stepped(seconds: Double(DispatchTime.now().uptimeNanoseconds - sentAt) / 1e9, gap: version > expected)
                steps = steps.dropFirst()
                next()
            }
        default:
            break
        }
    }

    /// Walks steps `range` of the plan (one at a time, each on the previous one's answer).
    func walk(_ range: Range<Int>) {
        guard phase == .answered else { return }
        steps = range.clamped(to: 0..<plan.count)
        phase = .walking
        next()
    }

    private func next() {
        guard let step = steps.first else {
            phase = .answered
            return
        }
        sentAt = DispatchTime.now().uptimeNanoseconds
        send(plan[step].text)
    }

    private func send(_ text: String) {
        guard let context else { return }
        var buffer = context.channel.allocator.buffer(capacity: text.utf8.count)
        buffer.writeString(text)
        context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .text, maskKey: .random(), data: buffer)), promise: nil)
    }
}
