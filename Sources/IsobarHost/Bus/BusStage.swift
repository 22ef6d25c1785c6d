import Foundation
import IsobarBus
import IsobarCore
import IsobarStdio
import Logging

/// A built-in stage on the bus in process (`isobar filter --bus`, `isobar format --bus`): the
/// same engine that reads stdin and writes stdout, fed straight from a SUB socket and publishing
/// straight to a PUB socket, with no `isobar plug` process and no pipes between.
///
/// What goes on the bus is what `isobar plug` would publish for the same stage, line for line:
/// every received message's lines (one, a batch or a group frame; see `TopicBatch`) are handed to
/// the engine in order, and every line the engine writes is published under the topic derived
/// from it (`TopicDeriver`, the plug's own check, so a malformed line still becomes an `error`
/// message), consecutive lines of one topic batched and, unlike the plug, consecutive lines of one
/// type for different clients coalesced under their group frame `T/` while no subscriber is
/// narrower (its PUB socket is an XPUB that hears the subscriptions; PROTOCOL.md, "Group
/// frames"). An input line over `maxLineLength` becomes one `error` message, as on
/// stdin. What it saves per message: the plug's receive, its write into the stage's stdin, the
/// stage's read and line split, its write to stdout, the plug's read and split, and two thread
/// hand-offs (BENCHMARKS.md, "Built-in stages on the bus").
///
/// One thread owns both sockets and the engine (the engine is not thread-safe and needs no lock):
/// it waits in `zmq_poll` on the SUB socket and a wake pipe, with no timeout but its two timers
/// (`OwnerTimers`): the stage's first words once `settle` has passed, and `tick` every `tickEvery`
/// seconds (the engine's timed work: a filter's lease expiry and missing-day resync schedule).
/// It ends on `stop` (SIGTERM/SIGINT through a `BlockingService`), which signals the wake pipe,
/// publishing what the engine wrote until then. A stage that crashes is restarted by whoever started it (`isobar up`
/// restarts its processes with backoff), exactly as a plug restarts its command; the protocol's
/// resync and lease rules repair what the restart lost.
public enum BusStage {
    /// Configuration: the stage's name (logs, `error` messages), its subscriptions (already
    /// expanded for a shard; `Shard.subscriptions`), the broker and the input limit.
    public struct Options: Sendable {
        public var name: String
        public var subscriptions: [String]
        public var endpoints: BrokerEndpoints
        public var maxLineLength: Int
        /// Seconds between `tick` calls (nil: no tick).
        public var tickEvery: Double?

        public init(name: String, subscriptions: [String], endpoints: BrokerEndpoints = .fromEnvironment(),
                    maxLineLength: Int = Limits.lineBytes, tickEvery: Double? = nil) {
            self.name = name
            self.subscriptions = subscriptions
            self.endpoints = endpoints
            self.maxLineLength = maxLineLength
            self.tickEvery = tickEvery
        }
    }

    /// How long the sockets have to connect (and the subscription to reach the broker) before the
    /// stage's first words (`start`) are published: a filter's start-up `resync` would otherwise
    /// be answered before its own subscription arrived (ZeroMQ's slow joiner). Not a guarantee: the
    /// filter asks again on its timer until a snapshot arrives (`FilterStage.StartupResync`).
    static let settle: Duration = .milliseconds(100)
    /// Most messages taken from the socket in one turn of the loop before the tick and the stop
    /// flag are looked at again.
    static let burst = 1_000
    /// Within a burst, the engine's answers are published after this many input messages, or
    /// once they hold `publishBytes`: all at the burst's end serialises the stages (a burst of
    /// 1,000 viewports is 30 ms of filter work before the formatter sees any), one send per
    /// message costs every hop a wake-up and a syscall per message.
    static let publishEvery = 64
    static let publishBytes = 64 * 1024

    /// Runs the stage until SIGTERM or SIGINT; returns the process's exit status (1 when the bus
    /// cannot be set up, with the reason logged).
    ///
    /// - `start`: the engine's first words (a filter's `resync` request), published after `settle`.
    /// - `tick`: timed work, every `options.tickEvery` seconds.
    /// - `handle`: one input line; the engine writes its answers into the writer.
    /// - `spill`: given, on the loop's thread before the first message, a function that publishes
    ///   a writer's lines at once and empties it, for an engine that must not hold every answer to
    ///   one input until `handle` returns (`FilterEngine.spill`).
    public static func run(
        _ options: Options, logger: Logger,
        spill: @escaping (@escaping (inout JSONWriter) -> Void) -> Void = { _ in },
        start: @escaping (inout JSONWriter) -> Void = { _ in },
        tick: @escaping (inout JSONWriter) -> Void = { _ in },
        handle: @escaping (UnsafeRawBufferPointer, inout JSONWriter) -> Void
    ) async -> Int32 {
        let context: ZMQContext
        let pub: ZMQSocket
        let sub: ZMQSocket
        do {
            let socketOptions = try BusSecurity.connectingSocketOptions()
            context = try ZMQContext()
            // XPUB: a PUB that also hears the subscriptions, so its answers can be coalesced.
            pub = try ZMQSocket(context, .xpub, options: socketOptions)
            try pub.connect(options.endpoints.frontend)
            sub = try ZMQSocket(context, .sub, options: socketOptions)
            for topic in options.subscriptions { try sub.subscribe(topic) }
            try sub.connect(options.endpoints.backend)
        } catch {
            logger.error("cannot join the bus: \(error)")
            return 1
        }
        if let security = try? BusSecurity.fromEnvironment() {
            logger.info("CURVE on: broker key \(security.serverKey), client key \(security.keyPair.publicKey)")
        }
        logger.info("in process on the bus: publishing to \(options.endpoints.frontend); subscribed at \(options.endpoints.backend) to \(subscriptionSummary(options.subscriptions))")

        guard let wake = WakePipe() else {
            logger.error("cannot join the bus: out of file descriptors for the wake pipe")
            return 1
        }
        let stopping = StopFlag()
        // The engine's closures are used on the loop's thread only (handed over once, at start).
        let engine = UncheckedBox((start: start, tick: tick, handle: handle, spill: spill))
        let service = BlockingService(name: options.name, body: {
            let publisher = PlugPublisher(socket: pub, stage: options.name, logger: logger, coalescing: true)
            engine.value.spill { Loop.publish(&$0, with: publisher) }
            var loop = Loop(options: options, sub: sub, publisher: publisher, wake: wake, stopping: stopping,
                            logger: logger, start: engine.value.start, tick: engine.value.tick, handle: engine.value.handle)
            loop.run()
            sub.close()
            publisher.close(linger: PlugOptions.drainGrace)
            withExtendedLifetime(context) {}
            logger.info("stopped")
            return 0
        }, stop: {
            stopping.raise()
            wake.signal()
        }, kill: {
            // The wake ends the loop's wait at once: a kill is a stop that does not wait.
            stopping.raise()
            wake.signal()
        })
        return await service.runUntilSignalled(logger: logger, stopBudget: PlugOptions.drainGrace * 2)
    }

    /// Hands non-Sendable closures to the loop's thread, their only user from then on.
    struct UncheckedBox<Value>: @unchecked Sendable {
        let value: Value
        init(_ value: Value) { self.value = value }
    }

    /// The loop's state, owned by its thread.
    struct Loop {
        let options: Options
        let sub: ZMQSocket
        let publisher: PlugPublisher
        let wake: WakePipe
        let stopping: StopFlag
        let logger: Logger
        let start: (inout JSONWriter) -> Void
        let tick: (inout JSONWriter) -> Void
        let handle: (UnsafeRawBufferPointer, inout JSONWriter) -> Void
        var writer = JSONWriter(capacity: 64 * 1024)

        /// The loop's timers: its first words, and the engine's timed work.
        enum Timer { case start, tick }

        mutating func run() {
            var timers = OwnerTimers<Timer>()
            let began = ContinuousClock.now
            timers.add(at: began + BusStage.settle, .start)
            if let every = options.tickEvery {
                let interval = Duration.nanoseconds(Int64(max(0.001, every) * 1e9))
                timers.add(at: began + interval, every: interval, .tick)
            }
            while !stopping.isRaised {
                for timer in timers.fire(now: .now) {
                    switch timer {
                    case .start:
                        start(&writer)
                        publish()
                        Readiness.announce(logger, "on the bus in process (pid \(getpid()))")
                    case .tick:
                        tick(&writer)
                        publish()
                    }
                }
                // Wait for input, the wake pipe (a stop) or the next timer, whichever is first.
                do {
                    let events = try ZMQPoll.poll([.socket(sub, .readable), .fileDescriptor(wake.readFD, .readable)],
                                                  timeout: timers.timeout(now: .now))
                    if events[1].contains(.readable) { wake.drain() }
                    guard events[0].contains(.readable) else { continue }
                } catch {
                    if !error.isTerminated { logger.error("receiving from the broker failed: \(error)") }
                    return
                }
                if !receiveBurst() { return }
                publish()
            }
        }

        /// Hands every waiting message (up to `burst`) to the engine; false when the socket failed.
        mutating func receiveBurst() -> Bool {
            var handled = 0
            for _ in 0..<BusStage.burst {
                do {
                    let got: Void? = try sub.receiveInPlace(blocking: false) { count, topic, payload in
                        guard count == 2 else {
                            logger.warning("ignoring a \(count)-frame message on topic \(String(decoding: topic, as: UTF8.self))")
                            return
                        }
                        feed(payload)
                        handled += 1
                        // Answers leave every `publishEvery` messages (or `publishBytes`), not only
                        // at the end of the burst, so the next stage works on the first answers
                        // while this one handles the rest (BENCHMARKS.md, "Built-in stages on the bus").
                        if handled % BusStage.publishEvery == 0 || writer.bytes.count >= BusStage.publishBytes { publish() }
                    }
                    if got == nil { return true }
                } catch {
                    if !error.isTerminated { logger.error("receiving from the broker failed: \(error)") }
                    return false
                }
            }
            return true
        }

        /// Hands each line of one payload (one, or a batch; see `TopicBatch`) to the engine.
        mutating func feed(_ payload: UnsafeRawBufferPointer) {
            TopicBatch.forEachLine(in: payload) { line in
                if line.count > options.maxLineLength {
                    ErrorMessage(stage: options.name, message: "line of \(line.count) bytes exceeds the \(options.maxLineLength)-byte limit; skipped",
                                 line: line, code: .lineTooLong).write(to: &writer)
                } else {
                    handle(line, &writer)
                }
            }
        }

        /// Publishes what the engine wrote (one line each, `\n`-terminated), batched by topic.
        mutating func publish() {
            Self.publish(&writer, with: publisher)
        }

        /// Publishes a writer's lines and empties it.
        static func publish(_ writer: inout JSONWriter, with publisher: PlugPublisher) {
            guard !writer.bytes.isEmpty else { return }
            writer.bytes.withUnsafeBytes { publisher.publishTrusted(lines: $0) }
            writer.removeAll()
        }
    }
}
