import ArgumentParser
import IsobarHost
import Logging

struct BrokerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "broker",
        abstract: "Run the message broker (XSUB for publishers <-> XPUB for subscribers).",
        discussion: """
        Publishers connect to the frontend (default \(BrokerEndpoints.defaultFrontend), env ISOBAR_PUB);
        subscribers connect to the backend (default \(BrokerEndpoints.defaultBackend), env ISOBAR_SUB).
        Only loopback (or ipc://, inproc://) endpoints are bound unless --allow-remote is given.
        Stops cleanly on SIGINT/SIGTERM.
        """)

    @Option(help: "XSUB endpoint publishers connect to (default: $ISOBAR_PUB or \(BrokerEndpoints.defaultFrontend)).")
    var frontend: String?
    @Option(help: "XPUB endpoint subscribers connect to (default: $ISOBAR_SUB or \(BrokerEndpoints.defaultBackend)).")
    var backend: String?
    @Flag(help: "Allow binding non-loopback interfaces (use with CURVE between hosts).")
    var allowRemote = false

    func run() throws {
        Logs.bootstrap()
        var endpoints = BrokerEndpoints.fromEnvironment()
        if let frontend { endpoints.frontend = frontend }
        if let backend { endpoints.backend = backend }
        do {
            let status = try runBroker(BrokerOptions(endpoints: endpoints, allowRemote: allowRemote), logger: Logger(label: "broker"))
            throw ExitCode(status)
        } catch let error as BrokerError {
            throw CLIError(error.description)
        }
    }
}

/// A one-line error for the user; ArgumentParser prints it and exits non-zero.
struct CLIError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
