import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1
import NIOWebSocket

/// The gateway's connection setup inside Hummingbird's server: every connection starts as HTTP/1;
/// `GET /ws` that the gateway admits is upgraded to a WebSocket served by a
/// ``WebSocketConnectionHandler`` (NIO's WebSocket frame codec and aggregator in front of it); any
/// other request is answered by Hummingbird's router (the web map, /healthz, /metrics).
///
/// Why not hummingbird-websocket's `HTTP1WebSocketUpgradeChannel`: it keeps a Swift task group
/// per connection (reader, auto-ping, handler) suspended for the connection's whole life, and a
/// heap profile put 20.7 KB of each idle connection's 35 KB in those tasks' allocator slabs
/// (BENCHMARKS.md, gateway). Here an upgraded connection's setup task ends with the upgrade; the
/// connection lives on as channel handlers only. Hummingbird's server still tracks the channel,
/// so its graceful shutdown waits for it to close.
struct GatewayChannel: ServerChildChannel, HTTPChannelHandler {
    /// How a connection's first request ended.
    enum Upgrade: Sendable {
        /// Upgraded: the WebSocket handler owns the channel now.
        case webSocket
        /// A plain HTTP request: Hummingbird serves this connection.
        case http(NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>)
        /// A refused upgrade: the refusal was written (``Refusal``); the connection just closes.
        case refused(NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>)
    }

    struct Value: ServerChildChannelValue {
        let upgrade: EventLoopFuture<Upgrade>
        let channel: any Channel
    }

    let responder: HTTPChannelHandler.Responder
    let hub: GatewayHub

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let hub = self.hub
        return channel.eventLoop.makeCompletedFuture {
            // Every connection counts against --max-connections from here until it closes.
            let admitted = hub.openedTCPConnection()
            channel.closeFuture.whenComplete { _ in hub.closedTCPConnection() }
            let options = hub.options
            let requestGuard = HTTPRequestGuard(
                limits: .init(headerTimeout: options.headerTimeout, requestTimeout: options.requestTimeout,
                              maxHeaderBytes: options.maxHeaderBytes),
                metrics: hub.metrics, full: !admitted, maxConnections: options.maxConnections)
            let watcher = HTTPExchangeWatcher(requestGuard: requestGuard)
            let guards = NIOLoopBound((requestGuard, watcher), eventLoop: channel.eventLoop)
            try channel.pipeline.syncOperations.addHandler(requestGuard)
            // What the upgrade check decided, for the pipeline step that follows it on this loop.
            let decided = NIOLoopBoundBox<Admission.Decision?>(nil, eventLoop: channel.eventLoop)
            let upgrader = NIOTypedWebSocketServerUpgrader<Upgrade>(
                maxFrameSize: hub.options.hardFrameLimit,
                shouldUpgrade: { channel, head in
                    guard GatewayServer.isWebSocketPath(head.uri) else { return channel.eventLoop.makeSucceededFuture(nil) }
                    let (decision, claim) = hub.admit(target: head.uri, authorization: head.headers.first(name: "Authorization"),
                                                      origin: head.headers.first(name: "Origin"), claim: true)
                    decided.value = decision
                    if case .accept(let name) = decision, let claim {
                        channel.closeFuture.whenComplete { _ in hub.releaseClaim(name: name, claim: claim) }
                        // The WebSocket handlers go in behind it: the watcher of HTTP parts must not see frames.
                        guards.value.0.headReceived()
                        channel.pipeline.syncOperations.removeHandler(guards.value.1, promise: nil)
                    }
                    if case .reject(let status, let reason) = decision {
                        logger.info("refused a WebSocket", metadata: ["status": "\(status)", "reason": "\(reason)"])
                        Refusal.send(status: status, reason: reason, on: channel)
                        return channel.eventLoop.makeSucceededFuture(nil)
                    }
                    return channel.eventLoop.makeSucceededFuture(HTTPHeaders())
                },
                upgradePipelineHandler: { channel, _ in
                    channel.eventLoop.makeCompletedFuture {
                        guard case .accept(let name) = decided.value else { throw ChannelError.inappropriateOperationForState }
                        // The WebSocket layer bounds its peer from here on (frame limits, rate, pings).
                        channel.pipeline.syncOperations.removeHandler(guards.value.0, promise: nil)
                        let limit = hub.options.hardFrameLimit
                        try channel.pipeline.syncOperations.addHandler(WebSocketFrameRules())
                        try channel.pipeline.syncOperations.addHandler(NIOWebSocketFrameAggregator(
                            minNonFinalFragmentSize: 0, maxAccumulatedFrameCount: 1_024, maxAccumulatedFrameSize: limit))
                        try channel.pipeline.syncOperations.addHandler(WebSocketConnectionHandler(hub: hub, name: name))
                        return Upgrade.webSocket
                    }
                })
            let notUpgrading = NIOTypedHTTPServerUpgradeConfiguration<Upgrade>(
                upgraders: [upgrader],
                notUpgradingCompletionHandler: { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(HTTP1ToHTTPServerCodec(secure: false))
                        try channel.pipeline.syncOperations.addHandler(HTTPConnectionStateHandler(idleTimeout: nil, logger: logger))
                        let http = try NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>(
                            wrappingChannelSynchronously: channel, configuration: .init(isOutboundHalfClosureEnabled: true))
                        return decided.value == nil ? Upgrade.http(http) : Upgrade.refused(http)
                    }
                })
            var configuration = NIOUpgradableHTTPServerPipelineConfiguration<Upgrade>(upgradeConfiguration: notUpgrading)
            configuration.enablePipelining = false  // Hummingbird's request loop reads one request at a time
            configuration.enableErrorHandling = false  // Hummingbird answers parse errors
            configuration.enableResponseHeaderValidation = false  // swift-http-types validates them
            let upgrade = try channel.pipeline.syncOperations.configureUpgradableHTTPServerPipeline(configuration: configuration)
            try channel.pipeline.syncOperations.addHandler(watcher)
            return Value(upgrade: upgrade, channel: channel)
        }
    }

    func handle(value: Value, logger: Logger) async {
        do {
            switch try await value.upgrade.get() {
            case .webSocket:
                break  // served by its channel handler from here on
            case .http(let http):
                await handleHTTP(asyncChannel: http, logger: logger)
            case .refused(let http):
                try await http.executeThenClose { _, _ in }
            }
        } catch {
            logger.debug("connection ended during its first request", metadata: ["error": "\(error)"])
        }
    }
}
