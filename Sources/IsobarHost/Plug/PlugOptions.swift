import IsobarCore

/// Configuration of `isobar plug [--sub TOPIC]... [--name NAME] [--no-restart] -- COMMAND [ARGS...]`.
public struct PlugOptions: Sendable {
    /// The program to run, looked up in `PATH` when it has no `/`. Never run through a shell.
    public var command: String
    /// Its arguments.
    public var arguments: [String]
    /// Topic prefixes to subscribe to; every message received on them is written to COMMAND's stdin as
    /// one line. Empty: COMMAND only publishes. `""` subscribes to everything.
    public var subscriptions: [String]
    /// Name used in log lines and as the `stage` of error messages. Default: the command's basename.
    public var name: String?
    /// Restart COMMAND with backoff when it exits. When false, plug exits with COMMAND's status.
    public var restart: Bool
    /// Broker endpoints: publishes to `frontend`, subscribes at `backend`. Defaults honour
    /// `ISOBAR_PUB` / `ISOBAR_SUB`.
    public var endpoints: BrokerEndpoints
    /// Restart delays.
    public var backoff: Backoff
    /// On shutdown, how long COMMAND gets to exit after its stdin is closed before SIGTERM.
    public var stdinCloseGrace: Duration
    /// On shutdown, how long COMMAND gets after SIGTERM before SIGKILL.
    public var terminateGrace: Duration
    /// Longest stdout line published; a longer one is replaced by one error message.
    public var maxLineLength: Int
    /// Most bytes each of plug's two bus queues holds (messages received and not yet written to
    /// COMMAND, lines published and not yet taken by the broker): `--max-queue-bytes`, 64 MiB.
    /// ZeroMQ bounds a queue by messages, so the bound is applied as ``queueMessages``.
    public var maxQueueBytes: Int

    public init(
        command: String,
        arguments: [String] = [],
        subscriptions: [String] = [],
        name: String? = nil,
        restart: Bool = true,
        endpoints: BrokerEndpoints = .fromEnvironment(),
        backoff: Backoff = Backoff(),
        stdinCloseGrace: Duration = .seconds(2),
        terminateGrace: Duration = .seconds(2),
        maxLineLength: Int = Limits.lineBytes,
        maxQueueBytes: Int = PlugOptions.defaultQueueBytes
    ) {
        self.command = command
        self.arguments = arguments
        self.subscriptions = subscriptions
        self.name = name
        self.restart = restart
        self.endpoints = endpoints
        self.backoff = backoff
        self.stdinCloseGrace = stdinCloseGrace
        self.terminateGrace = terminateGrace
        self.maxLineLength = maxLineLength
        self.maxQueueBytes = maxQueueBytes
    }

    /// The default of `maxQueueBytes`: 64 MiB per queue.
    public static let defaultQueueBytes = 64 << 20

    /// The high-water mark (in messages) of plug's SUB and PUB sockets that keeps each queue
    /// within `maxQueueBytes`: a bus message is at most `Limits.batchBytes` (64 KiB; consecutive
    /// lines of one topic are batched up to that, see `TopicBatch`) unless one line alone is longer,
    /// so `maxQueueBytes / 64 KiB` messages (1,024 by default; at least 16). A persist replaying at
    /// every resync once held 1.5 GB here under ZeroMQ's 100,000-message mark. Past the mark, what a
    /// slow COMMAND has not taken waits at the broker (its own per-peer queue, then dropped there).
    public var queueMessages: Int32 {
        Int32(clamping: max(16, maxQueueBytes / Limits.batchBytes))
    }

    /// How long plug's whole stop may take, SIGTERM to exit: the command's two graces, then up to
    /// `drainGrace` for each of the last steps (the input thread, the command's remaining output,
    /// the publisher's linger). Past it plug kills the command's process group and ends (the service
    /// group's graceful-shutdown limit); `isobar up` waits this long plus a second before it kills a
    /// plug, so the two never race (a killed plug would leave its stage behind).
    public var stopBudget: Duration {
        stdinCloseGrace + terminateGrace + Self.drainGrace * 3
    }

    /// Each of plug's last stop steps waits at most this long.
    public static let drainGrace: Duration = .seconds(2)

    /// `name`, or the last path component of `command`.
    public var displayName: String {
        if let name, !name.isEmpty { return name }
        return command.split(separator: "/").last.map(String.init) ?? command
    }
}
