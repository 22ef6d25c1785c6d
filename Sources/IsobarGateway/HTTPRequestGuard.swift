import NIOCore

/// The first handler of every gateway connection, on the raw bytes: it bounds what a peer that
/// is not a real HTTP client (slowloris, a dripped or huge head, HTTP/0.9, an HTTP/2 preface, an
/// odd method) can make the gateway spend, and makes sure each such peer gets an answer or a close,
/// never a hang:
///
/// - A request head must be complete within `headerTimeout` of the connection opening (or of the
///   previous response ending), and the whole request (its body too) within `requestTimeout`;
///   otherwise 408 and a close (an idle keep-alive connection that sent nothing is just closed).
/// - A head of more than `maxHeaderBytes` gets 431 and a close.
/// - A connection over `--max-connections` (every open TCP connection counts, an unfinished
///   request too) gets 503 and a close before anything is read.
/// - A request the HTTP parser refuses gets 400 (431 for the parser's own header limit).
///
/// Where each request's head, end and response end are comes from ``HTTPExchangeWatcher`` (behind
/// the HTTP decoder); a WebSocket upgrade removes both, since the WebSocket layer has limits of its
/// own. A refusal is written straight to the socket from here, then the output is shut (the peer
/// reads the answer, then the end of the stream) and the connection closed when the peer closes or
/// 2 s later, whatever it still sends being read and dropped: an answer cut by a reset helps no one.
final class HTTPRequestGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// Where the connection's current request stands.
    enum State: Equatable {
        /// Waiting for a request head; `bytes` of it read so far.
        case head(bytes: Int)
        /// The head arrived; the body (if any) is still coming.
        case body
        /// The request was read; the gateway is answering it (no timer: the answer is ours).
        case answering
        /// Refused (or gone): input is read and dropped until the connection closes.
        case refused
    }

    struct Limits: Sendable {
        var headerTimeout: Double
        var requestTimeout: Double
        var maxHeaderBytes: Int
    }

    private let limits: Limits
    private let metrics: GatewayMetrics
    /// Over `--max-connections` when it was opened: refused at once.
    private let full: Bool
    private let maxConnections: Int
    private(set) var state = State.head(bytes: 0)
    /// The response to the current request has begun (a refusal could not be written cleanly).
    private var responding = false
    private var timer: Scheduled<Void>?
    /// When the current request's time began (the connection opened, or the last answer ended).
    private var armedAt = NIODeadline.now()
    private var context: ChannelHandlerContext?

    init(limits: Limits, metrics: GatewayMetrics, full: Bool, maxConnections: Int) {
        self.limits = limits
        self.metrics = metrics
        self.full = full
        self.maxConnections = maxConnections
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        if context.channel.isActive { start(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        start(context)
        context.fireChannelActive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        self.context = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        state = .refused
        context.fireChannelInactive()
    }

    private var started = false

    private func start(_ context: ChannelHandlerContext) {
        guard !started else { return }
        started = true
        if full {
            metrics.error(.full)
            refuse(status: 503, reason: "the gateway is full (\(maxConnections) connections)")
        } else {
            armedAt = .now()
            arm(at: armedAt + Self.amount(limits.headerTimeout))
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch state {
        case .refused:
            return
        case .head(let bytes):
            let count = bytes + unwrapInboundIn(data).readableBytes
            state = .head(bytes: count)
            context.fireChannelRead(data)
            // Checked after the decoder saw the bytes: a head that ended inside them moved the state on.
            if case .head = state, count > limits.maxHeaderBytes {
                metrics.error(.headerTooLarge)
                refuse(status: 431, reason: "request head over \(limits.maxHeaderBytes) bytes")
            }
        case .body, .answering:
            context.fireChannelRead(data)
        }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        context.write(data, promise: promise)
    }

    // MARK: - What the watcher reports

    /// The decoder produced the request's head.
    func headReceived() {
        guard case .head = state else { return }
        state = .body
        arm(at: armedAt + Self.amount(limits.requestTimeout))
    }

    /// The request's end was read: the gateway answers it now.
    func requestEnded() {
        switch state {
        case .body:
            state = .answering
            timer?.cancel()
            timer = nil
        case .head:
            // The answer went out before the body ended (an early 404): the next head starts now.
            state = .head(bytes: 0)
        case .answering, .refused:
            break
        }
    }

    func responseStarted() { responding = true }

    /// The answer is out: the next request's head must come within the header timeout.
    func responseEnded() {
        responding = false
        guard state != .refused else { return }
        state = .head(bytes: 0)
        armedAt = .now()
        arm(at: armedAt + Self.amount(limits.headerTimeout))
    }

    /// The HTTP parser refused the request.
    func parseFailed(headerOverflow: Bool) {
        if headerOverflow {
            metrics.error(.headerTooLarge)
            refuse(status: 431, reason: "request head too large")
        } else {
            metrics.error(.badRequest)
            refuse(status: 400, reason: "not an HTTP/1 request this gateway understands")
        }
    }

    // MARK: - Timers and refusals

    private func arm(at deadline: NIODeadline) {
        timer?.cancel()
        guard let context else { return }
        let bound = NIOLoopBound(self, eventLoop: context.eventLoop)
        timer = context.eventLoop.scheduleTask(deadline: deadline) { bound.value.timedOut() }
    }

    private static func amount(_ seconds: Double) -> TimeAmount { .nanoseconds(Int64(max(0, seconds) * 1e9)) }

    private func timedOut() {
        timer = nil
        switch state {
        case .head(bytes: 0):
            context?.close(promise: nil)  // an idle connection: nothing to answer
            state = .refused
        case .head:
            metrics.error(.requestTimeout)
            refuse(status: 408, reason: "request head not complete within \(limits.headerTimeout) s")
        case .body:
            metrics.error(.requestTimeout)
            refuse(status: 408, reason: "request not complete within \(limits.requestTimeout) s")
        case .answering, .refused:
            break
        }
    }

    /// Writes `status` with `reason` (unless an answer is already under way), shuts the output, and
    /// closes when the peer does, or 2 s later.
    func refuse(status: Int, reason: String) {
        guard state != .refused, let context else { return }
        state = .refused
        timer?.cancel()
        let channel = context.channel
        timer = context.eventLoop.scheduleTask(in: .seconds(2)) { channel.close(promise: nil) }
        guard !responding else {
            context.close(promise: nil)
            return
        }
        let body = reason + "\n"
        let head = "HTTP/1.1 \(status) \(Self.phrase(status))\r\nContent-Type: text/plain; charset=utf-8\r\n"
            + "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n"
        context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(string: head + body))).whenComplete { _ in
            channel.close(mode: .output, promise: nil)
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        // The peer closed its side after a refusal: nothing more to wait for.
        if state == .refused, let event = event as? ChannelEvent, event == .inputClosed {
            context.close(promise: nil)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    static func phrase(_ status: Int) -> String {
        switch status {
        case 400: return "Bad Request"
        case 408: return "Request Timeout"
        case 431: return "Request Header Fields Too Large"
        case 503: return "Service Unavailable"
        default: return "Error"
        }
    }
}
