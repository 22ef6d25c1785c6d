import Foundation
import IsobarBus
import Logging

/// Runs `isobar plug`: connects to the broker, starts `options.command` (no shell), and until SIGTERM or
/// SIGINT:
/// - writes every message received on `options.subscriptions` to the command's stdin, one JSON line each;
/// - publishes every line the command writes on stdout under a topic derived from it: its `type`, plus
///   `/` and its `client` when it has a string `client` (`annotations/alice`); a line that is not a JSON
///   object with a string `type` (or is over `maxLineLength`) is published as one `error` message instead;
/// - copies the command's stderr to its own, line by line, unchanged;
/// - when the command exits, logs how and restarts it with capped exponential backoff (100 ms doubling
///   to 5 s, reset after 10 s of healthy running), unless `options.restart` is false: then returns the
///   command's status (exit code, or 128 + signal).
///
/// On SIGTERM/SIGINT (a `BlockingService` in a `ServiceGroup`) it closes the command's stdin, waits
/// `stdinCloseGrace`, then SIGTERM to the command's process group, waits `terminateGrace`, then
/// SIGKILL (a second signal, or a stop over `stopBudget`, kills at once); publishes what the
/// command wrote until then; closes the sockets and returns 0.
///
/// Subscription handshake: connecting and subscribing return at once, but the subscription needs a
/// moment (typically a few milliseconds on loopback, longer while the broker is down) to travel to the
/// broker and on to the publishers. Messages published before it arrives are not delivered to this plug
/// (ZeroMQ's slow joiner). Pipelines cope through the protocol's resync; tests publish probes until one
/// comes through.
public func runPlug(_ options: PlugOptions, logger: Logger) async throws(PlugError) -> Int32 {
    guard !options.command.isEmpty else { throw .missingCommand }
    let stage = options.displayName

    // CURVE client keys, when the environment sets them (see `BusSecurity`): the options must be on the
    // sockets before they connect.
    let security: BusSecurity?
    do {
        security = try BusSecurity.fromEnvironment()
    } catch {
        logger.error("\(error)")
        throw .bus(error.asZMQError)
    }
    // Each queue bounded by bytes (`PlugOptions.queueMessages`), after the defaults' 100,000 messages.
    let socketOptions = ZMQSocketOption.defaults + [.sendHighWaterMark(options.queueMessages), .receiveHighWaterMark(options.queueMessages)]
        + (security?.clientOptions ?? [])

    let context: ZMQContext
    let pub: ZMQSocket
    let sub: ZMQSocket
    do {
        context = try ZMQContext()
        pub = try ZMQSocket(context, .pub, options: socketOptions)
        try pub.connect(options.endpoints.frontend)
        sub = try ZMQSocket(context, .sub, options: socketOptions)
        for topic in options.subscriptions {
            try sub.subscribe(topic)
        }
        try sub.connect(options.endpoints.backend)
    } catch {
        throw .bus(error)
    }

    guard let wake = WakePipe() else { throw .bus(ZMQError(operation: "pipe (plug's wake descriptor)", errno: EMFILE)) }
    let publisher = PlugPublisher(socket: pub, stage: stage, logger: logger)
    let plug = Plug(options: options, publisher: publisher, wake: wake, logger: logger)
    let topics = subscriptionSummary(options.subscriptions)
    if let security {
        logger.info("CURVE on: broker key \(security.serverKey), client key \(security.keyPair.publicKey)")
    }
    logger.info("publishing to \(options.endpoints.frontend); subscribed at \(options.endpoints.backend) to \(topics.isEmpty ? "nothing" : topics)")

    let service = StoppableService(body: {
        let inputDone = Latch()
        PlugInput.start(socket: sub, plug: plug, stage: stage, logger: logger, done: inputDone)
        // Returns once the last run's output has been published (swift-subprocess drains its
        // pipes when it exits, and stops waiting for a descendant that holds them open).
        let exitCode = await plug.process.run()
        // The input thread sees the final state at once (the state change wakes it) and closes its socket.
        if await inputDone.sleep(for: PlugOptions.drainGrace) {
            logger.warning("the input thread did not stop in time")
        }
        publisher.close(linger: PlugOptions.drainGrace)
        withExtendedLifetime(context) {}
        logger.info("stopped")
        return exitCode
    }, stop: {
        plug.process.requestStop()
    }, kill: {
        plug.process.kill()
    })
    // Past the budget the group cancels the service, which kills the command's process group.
    await SignalledGroup.run(service, name: stage, logger: logger, stopBudget: options.stopBudget) {
        plug.process.kill()
    }
    return service.status
}

/// The subscriptions for the log, with a filter shard's per-partition prefixes (`viewport/00/`,
/// `viewport/02/`, ...) folded into one entry per type: `viewport/PP/ (32 partitions: 00, 02, ..., 62)`.
func subscriptionSummary(_ topics: [String]) -> String {
    var partitioned: [String: [String]] = [:]
    var order: [String] = []
    for topic in topics {
        let parts = topic.split(separator: "/", omittingEmptySubsequences: false)
        if parts.count == 3, parts[2].isEmpty, parts[1].count == 2, parts[1].allSatisfy(\.isNumber) {
            let type = String(parts[0])
            if partitioned[type] == nil { order.append(type + "/PP/") }
            partitioned[type, default: []].append(String(parts[1]))
        } else {
            order.append(topic.isEmpty ? "(everything)" : topic)
        }
    }
    let entries = order.map { entry -> String in
        guard entry.hasSuffix("/PP/"), let labels = partitioned[String(entry.dropLast(4))] else { return entry }
        let shown = labels.count <= 4 ? labels.joined(separator: ", ") : "\(labels[0]), \(labels[1]), ..., \(labels[labels.count - 1])"
        return "\(entry) (\(labels.count) partitions: \(shown))"
    }
    return entries.joined(separator: ", ")
}
