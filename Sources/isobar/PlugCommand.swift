import IsobarCore
import ArgumentParser
import IsobarHost
import Logging

struct PlugCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plug",
        abstract: "Host any NDJSON stdin/stdout program on the bus (subscribe -> its stdin, its stdout -> publish).",
        discussion: """
        isobar plug [--sub TOPIC]... [--shard K/N] [--name NAME] [--no-restart] -- COMMAND [ARGS...]

        COMMAND runs without a shell. Every message received on the subscribed topic prefixes is written
        to its stdin as one line; every line it writes on stdout is published with the topic derived from
        the message: its "type", plus "/" and its "client" when it has one (annotations/alice). A line
        that is not a JSON object with a string "type" is published as an "error" message instead.
        COMMAND's stderr is logged line by line under NAME. When COMMAND exits it is restarted with
        capped exponential backoff (100 ms doubling to 5 s) unless --no-restart.
        With --shard K/N, each subscription to a client->filter type (viewport/, select/, leave/,
        nearest/, search/, favorite/, detail/) becomes one per client partition shard K of N owns
        (viewport/00/, viewport/02/, ...): how a filter shard hears only its own clients.
        Example: isobar plug --sub visible --sub selection -- python3 examples/format.py
        """)

    @Option(name: .customLong("sub"), help: "Topic prefix to subscribe to (repeatable).")
    var subscriptions: [String] = []
    @Option(help: "Subscribe to the client partitions of filter shard K of N only (K/N; see PROTOCOL.md, Filter shards).")
    var shard: Shard = .whole
    @Option(help: "Name for logs and error messages (default: COMMAND's basename).")
    var name: String?
    @Flag(help: "Do not restart COMMAND; exit with its status instead.")
    var noRestart = false
    @Option(help: "Longest line accepted from COMMAND, in bytes.")
    var maxLineBytes = Limits.lineBytes
    @Option(help: "Most bytes each bus queue of plug holds (received for COMMAND, published by it): a high-water mark of this over 64 KiB messages.")
    var maxQueueBytes = PlugOptions.defaultQueueBytes
    @Argument(parsing: .captureForPassthrough, help: "-- COMMAND [ARGS...]")
    var command: [String] = []

    func run() async throws {
        Logs.bootstrap()
        var words = command
        if words.first == "--" {
            words.removeFirst()
        } else if let first = words.first, first == "--help" || first == "-h" {
            // Passthrough capture takes `--help` as the command; only after `--` is it the command's.
            throw CleanExit.helpRequest(self)
        }
        guard let program = words.first else { throw ValidationError("missing COMMAND: isobar plug [--sub TOPIC]... -- COMMAND [ARGS...]") }
        let options = PlugOptions(command: program, arguments: Array(words.dropFirst()), subscriptions: shard.subscriptions(subscriptions),
                                  name: name, restart: !noRestart, maxLineLength: maxLineBytes, maxQueueBytes: maxQueueBytes)
        do {
            throw ExitCode(try await runPlug(options, logger: Logger(label: options.displayName)))
        } catch let error as PlugError {
            throw CLIError(error.description)
        }
    }
}
