import IsobarCore
import Logging
import NIOCore
import NIOEmbedded
import NIOWebSocket

/// The gateway's relay of bus messages to its WebSocket clients, run in process on NIO's embedded
/// channels: no sockets, no bus, no threads. It exists for the instruction-count gate
/// (`isobar-bench counted`, path `gateway-relay`; scripts/checks/instructions.sh), which needs the
/// relay's cost on fixed inputs, and for nothing else.
///
/// Each message takes the production path: ``GatewayHub`` reads the leading numbers of an
/// `annotations` message, records the relayed version in its ``LeaseBook``, queues the bytes in
/// the client's ``Outbox``; at the end of the burst the hub wakes the event loop once, and the
/// client's ``WebSocketConnectionHandler`` writes each queued message as a text frame through
/// NIO's WebSocket frame encoder. Only the socket write itself is left out.
///
/// Runs on the thread that made it (the embedded loop's); not `Sendable`.
public final class GatewayRelayRig {
    private let hub: GatewayHub
    private let loop = EmbeddedEventLoop()
    private var channels: [EmbeddedChannel] = []

    /// A hub with `clients` connected WebSocket clients named `c0`, `c1`, ... (one event loop).
    public init(clients: Int) throws {
        var options = GatewayOptions()
        options.name = "gw-rig"
        options.maxConnections = clients + 1
        var logger = Logger(label: "isobar.gateway.rig")
        logger.logLevel = .error
        hub = GatewayHub(options: options, metrics: GatewayMetrics(), logger: logger)
        for k in 0..<clients {
            let channel = EmbeddedChannel(loop: loop)
            try channel.pipeline.syncOperations.addHandler(WebSocketFrameEncoder())
            try channel.pipeline.syncOperations.addHandler(WebSocketConnectionHandler(hub: hub, name: "c\(k)"))
            channel.connect(to: try SocketAddress(ipAddress: "127.0.0.1", port: 9), promise: nil)
            channels.append(channel)
        }
        loop.run()
    }

    /// Relays one bus message as the gateway's bus thread does (`annotations/c3`, its payload).
    public func relay(topic: String, payload: [UInt8]) {
        hub.receive(topic: topic, payload: payload)
    }

    /// Ends a burst of bus messages: the hub wakes the loop, the handlers write their frames.
    /// Returns the bytes the frames took on the wire since the last call (headers included).
    public func flush() -> Int {
        hub.busDrained()
        loop.run()
        var bytes = 0
        for channel in channels {
            while let buffer = try? channel.readOutbound(as: ByteBuffer.self) { bytes += buffer.readableBytes }
        }
        return bytes
    }
}
