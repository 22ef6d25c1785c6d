import ArgumentParser
import IsobarHost
import Logging

struct BrokerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "broker",
        abstract: "Run the message broker (XSUB for publishers <-> XPUB for subscribers).",
        discussion: """
        Publishers connect to the frontend (default \(BrokerEndpoints.defaultFrontend), env ISOBAR_PUB);
        subscribers connect to the backend (default \(BrokerEndpoints.defaultBackend), env ISOBAR_SUB).
        Only loopback (or ipc://, inproc://) endpoints are bound unless --allow-remote is given.
        Between hosts, turn on CURVE: --curve-secret with the broker's secret key (isobar keygen) and
        --curve-allow with the client public keys to admit; clients set ISOBAR_CURVE_SERVERKEY (the broker's
        .pub) and ISOBAR_CURVE_SECRETKEY (their own .key). A client whose key is not allowed receives nothing.
        Stops cleanly on SIGINT/SIGTERM.
        """)

    @Option(help: "XSUB endpoint publishers connect to (default: $ISOBAR_PUB or \(BrokerEndpoints.defaultFrontend)).")
    var frontend: String?
    @Option(help: "XPUB endpoint subscribers connect to (default: $ISOBAR_SUB or \(BrokerEndpoints.defaultBackend)).")
    var backend: String?
    @Flag(help: "Allow binding non-loopback interfaces (use with CURVE between hosts).")
    var allowRemote = false
    @Option(help: "CURVE: the broker's secret key file (NAME.key from isobar keygen); encrypts and authenticates the bus.")
    var curveSecret: String?
    @Option(help: "CURVE: client public keys to admit: a file with one Z85 key per line, or a directory of *.pub files.")
    var curveAllow: String?

    func validate() throws {
        if (curveSecret == nil) != (curveAllow == nil) {
            throw ValidationError("--curve-secret and --curve-allow go together: the broker's secret key and the client keys it admits")
        }
    }

    func run() async throws {
        Logs.bootstrap()
        var endpoints = BrokerEndpoints.fromEnvironment()
        if let frontend { endpoints.frontend = frontend }
        if let backend { endpoints.backend = backend }
        var curve: BrokerCurve?
        if let curveSecret, let curveAllow {
            do {
                curve = try BrokerCurve.load(secretKeyFile: curveSecret, allowlist: curveAllow)
            } catch {
                throw CLIError("broker: \(error)")
            }
        }
        do {
            let options = BrokerOptions(endpoints: endpoints, allowRemote: allowRemote, curve: curve)
            let status = try await runBroker(options, logger: Logger(label: "broker"))
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
