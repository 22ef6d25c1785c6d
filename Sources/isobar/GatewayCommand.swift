import IsobarCore
import ArgumentParser
import Foundation
import IsobarGateway
import IsobarHost
import Logging

/// `isobar gateway`: the WebSocket/HTTP door for apps and browsers (see PROTOCOL.md, "Gateway").
struct GatewayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gateway",
        abstract: "Serve map clients over WebSocket (GET /ws), the web map (GET /), /healthz and /metrics.",
        discussion: """
        A bus client like any other (endpoints ISOBAR_PUB / ISOBAR_SUB). Each WebSocket is one map client: it
        sends client-contract messages as text frames without "client" (the gateway fills in the connection's
        name: ?client=NAME, the token's name, or a generated web-XXXXXXXX), and receives its annotations,
        callouts and every status message as text frames:
          app -> gateway: {"type":"viewport","center":{"latitude":40.924,"longitude":-108.0955},"span":{"latitudeDelta":25,"longitudeDelta":20}}
          gateway -> app: {"type":"annotations","client":"web-3fa9c01d","version":1,"full":true,...}
        A bad frame gets one {"type":"error","stage":"gateway",...} frame; the connection stays open.
        Idle clients cost the bus nothing: one lease per gateway per --lease-interval stands for all of them.
        Prints "gateway: listening on http://HOST:PORT/" on stderr once listening; SIGTERM/SIGINT close every
        WebSocket with 1001 and exit 0.
        """)

    @Option(help: "Listen address HOST:PORT (port 0: any free port).")
    var listen = "127.0.0.1:8080"
    @Flag(help: "Allow a --listen host that is not loopback.")
    var allowRemote = false
    @Option(help: "This gateway's name on the bus (default: gw- and 8 random hex digits).")
    var name: String?
    @Option(help: "Directory of the web map (default: ./Web, else ../../Web next to the executable).")
    var webRoot: String?
    @Option(help: "Directory served under /leaflet/ (Debian's libjs-leaflet).")
    var leafletRoot = "/usr/share/javascript/leaflet"
    @Option(help: "GeoJSON served at /countries.geojson.")
    var countries: String?
    @Option(help: "Seconds between leases (one bus message per gateway standing for all its clients).")
    var leaseInterval = 1.0
    @Option(help: "Largest inbound message in bytes (larger: an error frame; over 4x: close 1009).")
    var maxFrame = Limits.gatewayFrameBytes
    @Option(help: "Messages per second per connection.")
    var rate = 20.0
    @Option(help: "Messages a connection may send at once above --rate.")
    var burst = 40.0
    @Option(help: "Most open connections, WebSockets and HTTP requests under way alike (more: HTTP 503); lowered at start, with a warning, when the descriptor limit cannot hold them.")
    var maxConnections = 20_000
    @Option(help: "Seconds a request head may take (from the connection opening or the previous answer): 408 after.")
    var headerTimeout = 10.0
    @Option(help: "Seconds a whole request may take, body included: 408 after.")
    var requestTimeout = 30.0
    @Option(help: "Outbound messages queued per connection; a reader that falls this far behind is closed with 1013.")
    var maxQueue = 256
    @Option(help: "Seconds the gateway stays silent on a WebSocket before a keepalive (an unsolicited pong, or a ping when one is due), and for a ping's pong to come back (else close 1001).")
    var ping = GatewayOptions().pingInterval
    @Option(help: "Ping a WebSocket peer silent for this many --ping intervals (the keepalives between are unsolicited pongs, which need no answer); 1: every keepalive a ping.")
    var pingEvery = GatewayOptions().pingEvery
    @Option(help: "Event-loop threads serving the connections (default: half the cores, at least 1: the pipeline's other processes need the rest).")
    var threads: Int?
    @Option(help: "File of `TOKEN NAME` lines; every WebSocket then needs a token (Authorization: Bearer, or ?token=).")
    var tokenFile: String?
    @Option(help: "Allowed Origin of WebSocket requests (repeatable; default: any). Requests without Origin are allowed.")
    var origin: [String] = []
    @Option(help: "TLS certificate chain (PEM).")
    var tlsCert: String?
    @Option(help: "TLS private key (PEM).")
    var tlsKey: String?
    @Option(help: "Log level (trace, debug, info, notice, warning, error).")
    var logLevel = "info"

    func validate() throws {
        guard let address = ListenAddress(parsing: listen) else { throw ValidationError("--listen must be HOST:PORT, not \(listen)") }
        guard address.isLoopback || allowRemote else {
            throw ValidationError("--listen \(listen) is reachable from other hosts; pass --allow-remote to mean it")
        }
        guard leaseInterval >= 0.05 else { throw ValidationError("--lease-interval must be at least 0.05 s") }
        guard maxFrame >= 64 else { throw ValidationError("--max-frame must be at least 64 bytes") }
        guard rate > 0, burst >= 1 else { throw ValidationError("--rate must be positive and --burst at least 1") }
        guard maxConnections >= 1, maxQueue >= 1 else { throw ValidationError("--max-connections and --max-queue must be at least 1") }
        guard headerTimeout >= 0.1, requestTimeout >= headerTimeout else {
            throw ValidationError("--header-timeout must be at least 0.1 s and --request-timeout at least --header-timeout")
        }
        guard ping >= 0.1 else { throw ValidationError("--ping must be at least 0.1 s") }
        guard (1...100).contains(pingEvery) else { throw ValidationError("--ping-every must be 1 to 100") }
        if let threads, !(1...256).contains(threads) { throw ValidationError("--threads must be 1 to 256") }
        guard (tlsCert == nil) == (tlsKey == nil) else { throw ValidationError("--tls-cert and --tls-key go together") }
        if let name { guard ClientName.isValid(name) else { throw ValidationError("--name must be 1-64 of [A-Za-z0-9._-]") } }
    }

    func run() async throws {
        Logs.bootstrap(level: Logger.Level(rawValue: logLevel) ?? .info)
        guard let address = ListenAddress(parsing: listen) else { throw ValidationError("--listen must be HOST:PORT") }
        var options = GatewayOptions()
        options.host = address.host
        options.port = address.port
        options.allowRemote = allowRemote
        if let name { options.name = name }
        options.webRoot = webRoot ?? Self.defaultPath("Web")
        options.leafletRoot = leafletRoot
        options.countries = countries ?? Self.defaultPath("Fixtures") + "/countries.geojson"
        options.leaseInterval = leaseInterval
        options.maxFrame = maxFrame
        options.rate = rate
        options.burst = burst
        options.maxConnections = maxConnections
        options.headerTimeout = headerTimeout
        options.requestTimeout = requestTimeout
        options.maxQueue = maxQueue
        options.pingInterval = ping
        options.pingEvery = pingEvery
        if let threads { options.threads = threads }
        options.origins = origin
        options.tlsCertificate = tlsCert
        options.tlsKey = tlsKey
        if let tokenFile {
            do {
                options.tokens = try TokenFile.load(path: tokenFile)
            } catch {
                throw CLIError(error.description)
            }
        }
        var logger = Logger(label: "gateway")
        logger[metadataKey: "gateway"] = "\(options.name)"
        do {
            try await RunGateway.run(options: options, logger: logger)
        } catch let error as GatewayServer.Failure {
            throw CLIError(error.description)
        }
    }

    /// `NAME` relative to the current directory when it exists there, else the nearest `NAME` in a
    /// directory above the executable (the source tree it was built in: `.build/debug/isobar`
    /// resolves to `.build/x86_64-unknown-linux-gnu/debug/isobar`).
    static func defaultPath(_ name: String) -> String {
        if FileManager.default.fileExists(atPath: name) { return name }
        var directory = URL(fileURLWithPath: UpCommand.executablePath()).deletingLastPathComponent()
        for _ in 0..<5 {
            directory = directory.deletingLastPathComponent()
            let candidate = directory.appendingPathComponent(name).path
            if FileManager.default.fileExists(atPath: candidate) { return candidate }
        }
        return name
    }
}
