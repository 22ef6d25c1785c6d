import IsobarBusClient
import IsobarCore
import NIOCore

/// Everything `isobar gateway` can be told (each limit is a command-line flag; see PROTOCOL.md).
public struct GatewayOptions: Sendable {
    /// Listen address; loopback unless `allowRemote`. Port 0 picks a free port (the readiness line
    /// says which).
    public var host = "127.0.0.1"
    public var port = 8080
    public var allowRemote = false
    /// This gateway's name on the bus (``Lease``/``Tally``), unique per running gateway.
    public var name = "gw-" + ClientName.hex8(UInt32.random(in: .min ... .max))
    public var endpoints = BrokerEndpoints.fromEnvironment()
    /// Directory of the web map (index.html and what it loads under /web/).
    public var webRoot = "Web"
    /// Debian's libjs-leaflet directory, served under /leaflet/.
    public var leafletRoot = "/usr/share/javascript/leaflet"
    /// The country outlines served at /countries.geojson.
    public var countries = "Fixtures/countries.geojson"
    /// Seconds between leases.
    public var leaseInterval = 1.0
    /// Largest accepted inbound message in bytes; a larger one gets an error frame. Frames over
    /// `hardFrameLimit` are refused by the WebSocket layer itself with close code 1009.
    public var maxFrame = Limits.gatewayFrameBytes
    /// Messages per second per connection, and the burst allowed above it.
    public var rate = 20.0
    public var burst = 40.0
    /// Most open TCP connections (WebSockets and HTTP requests under way alike); more: 503. Lowered
    /// at start when the descriptor limit cannot hold them (``DescriptorBudget``).
    public var maxConnections = 20_000
    /// Seconds a request head may take to arrive (from the connection opening or the previous
    /// answer), and the whole request (its body too): 408 after that (``HTTPRequestGuard``).
    public var headerTimeout = 10.0
    public var requestTimeout = 30.0
    /// Largest request head in bytes (request line and headers): 431 over it.
    public var maxHeaderBytes = 32_768
    /// Outbound frames queued per connection before a slow reader is disconnected (close 1013).
    public var maxQueue = 256
    /// `token name` pairs; when non-nil every WebSocket needs one of the tokens.
    public var tokens: [String: String]?
    /// Allowed `Origin` header values; empty: any. A request without `Origin` is always allowed
    /// (it is not from a browser page).
    public var origins: [String] = []
    /// The longest the gateway stays silent on a WebSocket (it sends an unsolicited pong, a
    /// keepalive, when it had nothing else to send for this long), and the time a ping has for its
    /// pong (the liveness check, PROTOCOL.md "Liveness"; no bus traffic per client). 50 s: every
    /// keepalive costs the gateway a write, so the interval is as long as it can be while a quiet
    /// connection still carries a gateway frame more often than the 60 s idle timeout of nginx's
    /// `proxy_read_timeout` and AWS ALB's default (and Heroku's 55 s): the wheel is at most 1 s
    /// late, leaving ~9 s for a loaded machine.
    public var pingInterval = 50.0
    /// A peer silent for this many `pingInterval`s is pinged (and dropped, 1001, when its pong does
    /// not come within `pingInterval`); the keepalives in between are unsolicited pongs, which cost
    /// the gateway no read. 3: a silent peer is pinged every 150 s and a dead one dropped 150-201 s
    /// after it was last heard; 1 makes every keepalive a ping.
    public var pingEvery = 3
    /// Event-loop threads for the connections: half the cores by default (at least one), since
    /// on one machine the broker, filter and formatter share the rest.
    public var threads = max(1, System.coreCount / 2)
    public var tlsCertificate: String?
    public var tlsKey: String?

    public init() {}

    /// The WebSocket layer's own frame limit: four times `maxFrame` (at least 16 KiB), so a
    /// moderately oversized message is read and answered with an error frame, and only a huge one
    /// costs the connection.
    public var hardFrameLimit: Int { max(16_384, maxFrame * 4) }

    /// The liveness check's two times: the keepalive interval and the probe time.
    var pingTiming: PingClock.Timing { PingClock.Timing(interval: pingInterval, probeEvery: pingEvery) }

    /// Rejected messages beyond the rate (net of accepted ones) before the connection is closed 1008.
    public var strikeLimit: Int { max(10, Int(burst)) }
}
