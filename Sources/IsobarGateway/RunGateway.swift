import Foundation
import Hummingbird
import IsobarStdio
import Logging
import ServiceLifecycle

/// `isobar gateway`: the HTTP server and the bus service in one `ServiceGroup` that stops on
/// SIGTERM or SIGINT (WebSockets closed with 1001, exit 0).
public enum RunGateway {
    /// What the gateway writes on stderr, before its URL, once it listens: `gateway: listening on URL`.
    /// `isobar up` watches its gateway's output for this line to print the web map's address.
    public static let listeningPrefix = "gateway: listening on "

    /// Runs until a shutdown signal. Prints `gateway: listening on URL` on stderr once listening,
    /// and the readiness line (`Readiness`).
    public static func run(options: GatewayOptions, logger: Logger) async throws {
        var options = options
        let budget = DescriptorBudget.apply(maxConnections: options.maxConnections)
        if let warning = budget.warning { logger.warning("\(warning)") }
        options.maxConnections = budget.maxConnections
        let metrics = GatewayMetrics()
        let hub = GatewayHub(options: options, metrics: metrics, logger: logger)
        let app = try GatewayServer.makeApplication(hub: hub, logger: logger) { url in
            FileHandle.standardError.write(Data("\(listeningPrefix)\(url)\n".utf8))
            Readiness.announce(logger, "listening on \(url)")
        }
        // Shut down in reverse order: the bus service first (closing WebSockets with 1001 while
        // the server still runs), then the HTTP server.
        let group = ServiceGroup(configuration: .init(
            services: [.init(service: app), .init(service: GatewayBusService(hub: hub))],
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: logger))
        try await group.run()
    }
}
