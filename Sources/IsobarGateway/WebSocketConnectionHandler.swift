import Foundation
#if canImport(Glibc)
import Glibc
#endif
import IsobarCore
import NIOCore
import NIOWebSocket

/// One WebSocket map client as a NIO channel handler on its channel's event loop: it registers the
/// client with the ``GatewayHub``, applies the rate limit to each message it reads and hands it to
/// the hub, writes what the bus sends the client from its bounded ``Outbox``, answers pings, keeps
/// the connection alive (an unsolicited pong after `--ping` of its own silence, a ping when the
/// peer was silent for `--ping-every` intervals), and runs the close handshake; when the channel goes, it unregisters (the hub
/// publishes `leave`).
///
/// There is no task or timer per connection: an idle client is its channel and this handler, which
/// is what keeps a gateway's memory per idle connection small (BENCHMARKS.md, gateway); the
/// liveness check is one timer per event loop (``PingSweeper``) looking at each connection only
/// when its ``PingClock`` is due (a ``PingWheel``). Every
/// method runs on the event loop; other threads reach it only through ``GatewayConnection``'s
/// `wake` and `sendClose`, which hop onto the loop.
///
/// Fragmented messages are joined by NIO's `NIOWebSocketFrameAggregator` in front of it; frames
/// over the hard limit are refused by NIO's frame decoder (close 1009) before they get here.
final class WebSocketConnectionHandler: ChannelInboundHandler, RemovableChannelHandler, PingWheelMember {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    /// Where the close handshake stands.
    enum Phase: Equatable {
        /// Reading and writing.
        case open
        /// A close frame went out (ours or our answer to the peer's): only the peer's close or the
        /// 2 s timer remain.
        case closing
        /// The channel is gone.
        case closed
    }

    private let hub: GatewayHub
    private let name: String
    private var bucket: TokenBucket
    private var phase = Phase.open
    private var connection: GatewayConnection?
    private var context: ChannelHandlerContext?
    /// The frame encoder's context: a keepalive pong or a ping, pre-encoded, is written from here
    /// (below the encoder), so it costs no frame to encode and no allocation (nil: through `context`).
    private var encoderContext: ChannelHandlerContext?
    /// When the peer was last heard from and sent to, and whether a ping is out (the sweep reads it).
    private var clock = PingClock(openedAt: WebSocketConnectionHandler.seconds())
    /// The answer to the peer's latest ping, while the socket takes no more (``answer(ping:)``).
    private var pendingPong: ByteBuffer?
    /// The loop's liveness sweep, while this connection is registered with it.
    private var sweeper: PingSweeper?
    /// Where the sweeper's wheel holds this connection (kept by the wheel).
    var wheelPosition: PingWheelPosition?
    private var closeTimer: Scheduled<Void>?

    init(hub: GatewayHub, name: String) {
        self.hub = hub
        self.name = name
        let options = hub.options
        bucket = TokenBucket(rate: options.rate, burst: options.burst, strikeLimit: options.strikeLimit, now: Self.seconds())
    }

    // MARK: - Lifecycle

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        let loop = context.eventLoop
        let bound = NIOLoopBound(self, eventLoop: loop)
        let sendClose: @Sendable (Outbox.Close) -> Void = { close in loop.execute { bound.value.sendClose(close) } }
        guard let connection = hub.register(name: name, eventLoop: loop, drainOnLoop: { bound.value.drain() }, sendClose: sendClose) else {
            sendClose(.init(code: GatewayCloseCode.nameTaken, reason: "client \(name) is already connected"))
            return
        }
        self.connection = connection
        clock = PingClock(openedAt: Self.seconds())
        encoderContext = try? context.pipeline.syncOperations.context(handlerType: WebSocketFrameEncoder.self)
        Self.limitUnacknowledged(context.channel, seconds: hub.options.pingInterval)
        let sweeper = hub.sweepers.sweeper(on: loop)
        sweeper.add(self, due: clock.due(hub.options.pingTiming))
        self.sweeper = sweeper
    }

    /// `TCP_USER_TIMEOUT`: the kernel drops the connection when data it sent stays unacknowledged
    /// for `seconds` (a peer whose host or network is gone: the next keepalive is never
    /// acknowledged), with no ping and no user-space work. Not `SO_KEEPALIVE`: its probes go only
    /// on a connection with nothing in flight and nothing received for `TCP_KEEPIDLE`, and the
    /// keepalive pongs keep every connection from being that idle, so they would never go.
    private static func limitUnacknowledged(_ channel: any Channel, seconds: Double) {
        #if canImport(Glibc)
        let option = ChannelOptions.Types.SocketOption(level: .tcp, name: NIOBSDSocket.Option(rawValue: CInt(TCP_USER_TIMEOUT)))
        let milliseconds = Int(min(seconds * 1_000, Double(Int32.max)).rounded(.up))
        try? channel.syncOptions?.setOption(option, value: milliseconds)
        #endif
    }

    func channelInactive(context: ChannelHandlerContext) {
        phase = .closed
        sweeper?.remove(self)
        sweeper = nil
        closeTimer?.cancel()
        closeTimer = nil
        if let connection {
            connection.outbox.finish(nil)
            hub.unregister(connection)
            self.connection = nil
        }
        self.context = nil
        encoderContext = nil
        context.fireChannelInactive()
    }

    /// A FIN from the peer (the server allows half-closed input): it can never send its close
    /// frame now, so the connection ends at once and its name is free again (not at the next
    /// ping). A FIN after the close handshake began changes nothing: that path closes by itself.
    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? ChannelEvent, event == .inputClosed, phase == .open {
            hub.logger.debug("client closed its side without a close frame", metadata: ["client": "\(name)"])
            context.close(promise: nil)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // The aggregator's errors (a message over the hard limit in fragments, a bad fragment
        // sequence) and I/O errors: the connection cannot go on.
        let code = (error as? NIOWebSocketFrameAggregator.Error) == .accumulatedFrameSizeIsTooLarge
            ? GatewayCloseCode.messageTooBig : GatewayCloseCode.protocolError
        if phase == .open, error is NIOWebSocketFrameAggregator.Error || error is WebSocketFrameRules.Violation {
            sendClose(.init(code: code, reason: "\(error)"))
        } else {
            context.close(promise: nil)
        }
    }

    // MARK: - Reading

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        let now = Self.seconds()
        clock.heard(at: now)
        switch frame.opcode {
        case .text:
            guard phase == .open else { return }
            receive(text: frame.unmaskedData)
        case .binary:
            guard phase == .open, let connection else { return }
            guard admitMessage(connection) else { return }
            hub.metrics.framesIn.increment()
            hub.metrics.error(.binary)
            let bytes = Array(frame.unmaskedData.readableBytesView.prefix(80))
            hub.deliver(hub.errorLine("binary frames are not accepted; send each message as one text frame of JSON", bytes), to: connection)
        case .ping:
            guard phase == .open, let connection, admitControl(connection) else { return }
            answer(ping: frame.unmaskedData)
        case .pong:
            guard phase == .open, let connection, admitControl(connection) else { return }
            clock.ponged(at: now)
        case .connectionClose:
            if phase == .open {
                // Answer with the peer's code (or none), then drop the connection once it is out.
                phase = .closing
                var payload = frame.unmaskedData
                var answer = context.channel.allocator.buffer(capacity: 2)
                if let code = payload.readWebSocketErrorCode() { answer.write(webSocketErrorCode: code) }
                context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .connectionClose, data: answer)))
                    .whenComplete { [channel = context.channel] _ in channel.close(promise: nil) }
            } else {
                context.close(promise: nil)
            }
        default:
            // Continuations are joined by the aggregator in front; anything else is not WebSocket.
            if phase == .open { sendClose(.init(code: GatewayCloseCode.protocolError, reason: "unexpected frame")) }
        }
    }

    private func receive(text: ByteBuffer) {
        guard let connection, admitMessage(connection) else { return }
        if let error = hub.receiveFrame(Array(text.readableBytesView), from: connection) {
            hub.deliver(error, to: connection)
        }
    }

    /// The rate limit: true when the message may be handled. Over the rate it is dropped with an
    /// error frame; a client that keeps at it is closed with 1008.
    private func admitMessage(_ connection: GatewayConnection) -> Bool {
        guard !connection.outbox.isFinished else { return false }
        guard !bucket.take(now: Self.seconds()) else { return true }
        let options = hub.options
        if bucket.exhausted {
            hub.metrics.error(.rateClose)
            hub.close(connection, code: GatewayCloseCode.policyViolation, reason: "kept sending over \(options.rate) messages/s")
        } else {
            hub.metrics.error(.rate)
            hub.deliver(hub.errorLine("over the limit of \(options.rate) messages/s (burst \(Int(options.burst))); message dropped", []), to: connection)
        }
        return false
    }

    /// The rate limit for pings and pongs from the peer: they take tokens from the same bucket as
    /// messages. One over the rate is dropped without an answer (an error frame would cost the
    /// very memory a flood is after); a peer that keeps at it is closed with 1008 like any flooder.
    private func admitControl(_ connection: GatewayConnection) -> Bool {
        // Closing already (the close frame hops onto this loop after the frames read with this one).
        guard !connection.outbox.isFinished else { return false }
        guard !bucket.take(now: Self.seconds()) else { return true }
        hub.metrics.error(.controlRate)
        if bucket.exhausted {
            hub.metrics.error(.rateClose)
            hub.close(connection, code: GatewayCloseCode.policyViolation,
                      reason: "kept sending pings or pongs over \(hub.options.rate) messages/s")
        }
        return false
    }

    /// Answers a ping: at most one pong waits per connection. While the socket takes no more
    /// (the peer is not reading), a newer ping's data replaces the waiting answer (RFC 6455 5.5.3
    /// allows answering only the most recent ping), so a peer that pings and never reads costs one
    /// pong, not one per ping.
    private func answer(ping data: ByteBuffer) {
        if pendingPong != nil { hub.metrics.pongsCoalesced.increment() }
        pendingPong = data
        writePendingPong()
    }

    private func writePendingPong() {
        guard phase == .open, let context, let data = pendingPong, context.channel.isWritable else { return }
        pendingPong = nil
        clock.sent(at: Self.seconds())
        context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .pong, data: data)), promise: nil)
    }

    // MARK: - Writing

    /// Writes queued frames while the socket takes them, then flushes once. When the socket stops
    /// being writable the rest waits in the outbox (`channelWritabilityChanged` resumes): a client
    /// that does not read fills its outbox, not the gateway's memory.
    func drain() {
        guard phase == .open, let context, let connection else { return }
        writePendingPong()
        var written = 0
        while context.channel.isWritable, let text = connection.outbox.pop() {
            let buffer = context.channel.allocator.buffer(bytes: text)
            context.write(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .text, data: buffer)), promise: nil)
            written += 1
        }
        guard written > 0 else { return }
        clock.sent(at: Self.seconds())
        context.flush()
        hub.metrics.framesOut.increment(by: Int64(written))
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable {
            writePendingPong()
            drain()
        }
        context.fireChannelWritabilityChanged()
    }

    /// Sends a close frame (code and reason, the reason cut to the 123 bytes a close frame has room
    /// for) and drops the TCP connection when the peer answers, or after 2 s if it does not.
    func sendClose(_ close: Outbox.Close) {
        guard phase == .open, let context else { return }
        phase = .closing
        var reason = Substring(close.reason)
        while reason.utf8.count > 123 { reason = reason.dropLast() }
        var payload = context.channel.allocator.buffer(capacity: 2 + reason.utf8.count)
        payload.write(webSocketErrorCode: WebSocketErrorCode(codeNumber: Int(close.code)))
        payload.writeString(String(reason))
        context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: .connectionClose, data: payload)), promise: nil)
        closeTimer = context.eventLoop.scheduleTask(in: .seconds(2)) { [channel = context.channel] in
            channel.close(promise: nil)
        }
    }

    /// The sweeper's check at this connection's due time `now` (``PingClock``): a peer whose ping
    /// went unanswered for an interval is dropped (close 1001, then the TCP connection at once: it
    /// is not reading); one silent for the probe time is pinged; one the gateway sent nothing for
    /// an interval gets an unsolicited pong; any other is left alone. Returns when to check again,
    /// nil when the connection is done with.
    func check(now: Double, _ timing: PingClock.Timing) -> Double? {
        guard phase == .open, let context else { return nil }
        switch clock.action(now: now, timing) {
        case .wait:
            return clock.due(timing)
        case .drop:
            hub.logger.info("client did not answer a ping", metadata: ["client": "\(name)"])
            connection?.outbox.finish(.init(code: GatewayCloseCode.goingAway, reason: "no answer to ping"))
            sendClose(.init(code: GatewayCloseCode.goingAway, reason: "no answer to ping"))
            context.close(promise: nil)
            return nil
        case .keepalive:
            clock.sent(at: now)
            writeControl(.pong, encoded: Self.emptyPong, context: context)
            return phase == .open ? clock.due(timing) : nil  // a failed write closes
        case .ping:
            clock.pinged(at: now)
            writeControl(.ping, encoded: Self.emptyPing, context: context)
            return phase == .open ? clock.due(timing) : nil
        }
    }

    /// Writes an empty control frame: its pre-encoded bytes from below the frame encoder (no
    /// frame to encode, no header to allocate, no walk through the WebSocket handlers), else the
    /// frame through this handler's context.
    private func writeControl(_ opcode: WebSocketOpcode, encoded: ByteBuffer, context: ChannelHandlerContext) {
        if let encoderContext {
            encoderContext.writeAndFlush(NIOAny(encoded), promise: nil)
        } else {
            context.writeAndFlush(wrapOutboundOut(WebSocketFrame(fin: true, opcode: opcode, data: ByteBuffer())), promise: nil)
        }
    }

    /// An empty pong and an empty ping as a server sends them (FIN, the opcode, unmasked, length
    /// 0), shared: nothing to allocate per keepalive.
    static let emptyPong = ByteBuffer(bytes: [0x8A, 0x00])
    static let emptyPing = ByteBuffer(bytes: [0x89, 0x00])

    static func seconds() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }
}
