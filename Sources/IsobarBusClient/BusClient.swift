import Foundation
import IsobarBus
import IsobarCore
import Synchronization

/// A bus participant that is not a stage: it publishes lines and receives messages on some topics.
/// Used by `isobar attach`, by the gateway, and by tests and benchmarks that act as map clients.
///
/// One thread owns the SUB socket (never the Swift concurrency pool): it waits in `zmq_poll` on the
/// socket and a wake descriptor (``WakePipe``) with no timeout, except until the next of its timers
/// (``every(_:_:)``) is due. `onMessage` is called there with the topic and each JSON line (a
/// batched bus message, see `TopicBatch`, is split; a group frame's lines each come with the topic
/// derived from the line); so are the timers' actions. `close()` signals
/// the wake descriptor: the thread ends at once, whatever it was waiting for.
/// Publishing is thread-safe (a `Mutex` around the PUB socket; a PUB send never blocks). The PUB
/// socket is an XPUB that hears the subscriptions behind the broker (for coalescing): the receive
/// thread also waits on its descriptor (`ZMQ_FD`) and takes the changes when the socket says some
/// wait, so they never pile up in libzmq, however few lines are published.
public final class BusClient: Sendable {
    /// What `publish` uses, only under the mutex.
    struct Publisher: ~Copyable {
        /// An XPUB socket: a PUB that also hears which subscriptions exist (for `groups`).
        let socket: ZMQSocket
        /// `publish(ownLine:)`'s topic buffer, reused.
        var ownDeriver = TopicDeriver()
        /// The subscriptions behind the broker, as far as coalescing needs them (`publish(lines:)`).
        var groups = SubscriptionGroups()

        /// Whether the receive thread watches the socket's descriptor (`ZMQ_FD`) and takes the
        /// changes when it fires (`BusClient.start`); until then single-line publishes look.
        var watched = false
        /// A single-line publish happened since the receive thread last looked: its send may have
        /// taken the descriptor's signal (libzmq processes the socket's commands in a send).
        var sentSinceLook = false

        /// Takes the subscription changes waiting on the socket (`SubscriptionGroups.take(from:)`).
        mutating func takeSubscriptions() {
            groups.take(from: socket)
        }

        /// Takes the changes when the socket says some wait (ZMQ_EVENTS readable). Changes arrive
        /// one per subscription first made or last dropped broker-wide (the broker forwards
        /// distinct ones only), never per message, and left untaken they would pile up in libzmq
        /// (up to the receive high-water mark). Costs a `poll` system call: done when the
        /// socket's descriptor fires on the receive thread, not per line.
        mutating func takeIfSignalled() {
            guard let events = try? socket.pendingEvents(), events.contains(.readable) else { return }
            takeSubscriptions()
        }

        /// Before a single-line publish, which uses no group: only a client whose receive thread
        /// does not watch the socket looks for changes here (the cost is a `poll` per line: such a
        /// client is a tool or a test, not a hot path).
        mutating func takeIfUnwatched() {
            if watched { sentSinceLook = true } else { takeIfSignalled() }
        }

        /// The receive thread's look after a wake-up: when the descriptor fired, or when a publish
        /// since the last look may have taken its signal (it is edge-triggered).
        mutating func takeAfterWake(fired: Bool) {
            guard fired || sentSinceLook else { return }
            sentSinceLook = false
            takeIfSignalled()
        }
    }

    /// Where the receive thread is; timers added before it starts wait in `idle`.
    enum State {
        case idle(timers: [Timer])
        case running(added: [Timer])
        case closed
    }

    /// A timer's interval and action, on its way to the receive thread.
    struct Timer: Sendable {
        let interval: Duration
        let action: @Sendable () -> Void
    }

    /// What the receive thread and the callers share.
    final class Control: Sendable {
        let state = Mutex(State.idle(timers: []))
        /// Wakes the receive thread (a stop, a timer added).
        let wake: WakePipe
        /// Signalled by the receive thread after it closed the socket.
        let finished: WakePipe

        init(wake: WakePipe, finished: WakePipe) {
            self.wake = wake
            self.finished = finished
        }
    }

    // `context` is thread-safe in libzmq; `subscriber` is used by the receive thread only once
    // it started (handed over by the thread start), and by `close()` only when none was started.
    private let context: ZMQContext
    private let subscriber: ZMQSocket
    private let publisher: Mutex<Publisher>
    private let control: Control

    /// Connects to the broker at `endpoints` and subscribes to `topics`. When the environment configures
    /// CURVE (`ISOBAR_CURVE_SERVERKEY`, `ISOBAR_CURVE_SECRETKEY`; see `BusSecurity`), both sockets are
    /// CURVE clients; a misconfiguration throws an `EINVAL` error that says what is wrong. Throws
    /// `EMFILE` when the process is out of descriptors for the wake pipes.
    public init(endpoints: BrokerEndpoints = .fromEnvironment(), topics: [String]) throws(ZMQError) {
        let options = try BusSecurity.connectingSocketOptions()
        guard let wake = WakePipe(), let finished = WakePipe() else {
            throw ZMQError(operation: "pipe (the bus client's wake descriptor)", errno: EMFILE)
        }
        control = Control(wake: wake, finished: finished)
        context = try ZMQContext()
        let publisher = try ZMQSocket(context, .xpub, options: options)
        subscriber = try ZMQSocket(context, .sub, options: options)
        try publisher.connect(endpoints.frontend)
        try subscriber.connect(endpoints.backend)
        for topic in topics { try subscriber.subscribe(topic) }
        self.publisher = Mutex(Publisher(socket: publisher))
    }

    /// Runs `action` on the receive thread every `interval` (the first run one interval from now, or
    /// from `start` when called before it), until `close()`. What a client does on a schedule (a
    /// heartbeat, a lease) is a timer of the thread that already waits, not a thread of its own.
    public func every(_ interval: Duration, _ action: @escaping @Sendable () -> Void) {
        let timer = Timer(interval: interval, action: action)
        let running = control.state.withLock { state -> Bool in
            switch state {
            case .idle(let timers):
                state = .idle(timers: timers + [timer])
                return false
            case .running(let added):
                state = .running(added: added + [timer])
                return true
            case .closed:
                return false
            }
        }
        if running { control.wake.signal() }
    }

    /// Starts the receive thread. It ends when `close()` is called.
    ///
    /// `onDrained`, when given, is called on the same thread each time the messages that were
    /// waiting have all been handed to `onMessage` (before waiting for the next one), and at least
    /// every `drainLimit` messages under a steady stream: a client that answers messages with
    /// messages of its own can send its answers there as one burst.
    ///
    /// Each line is handed over as its own `String` topic and `[UInt8]` copy: built on
    /// ``startInPlace(onLine:onDrained:)``, whose bytes it copies (a batch's lines share one topic `String`).
    public func start(onMessage: @escaping @Sendable (_ topic: String, _ payload: [UInt8]) -> Void,
                      onDrained: (@Sendable () -> Void)? = nil) {
        let topics = TopicText()
        startInPlace(onLine: { topic, line in onMessage(topics.text(of: topic), Array(line)) }, onDrained: onDrained)
    }

    /// ``start(onMessage:onDrained:)`` without a copy: `onLine` gets each line's topic and bytes
    /// where they lie (libzmq's buffer, or the receive thread's topic buffer for a group frame's
    /// lines), valid only during the call. A client that reads each line once (the benchmark's
    /// thousand map clients) then makes no `String` or `Array` per line.
    public func startInPlace(onLine: @escaping @Sendable (_ topic: UnsafeRawBufferPointer, _ line: UnsafeRawBufferPointer) -> Void,
                      onDrained: (@Sendable () -> Void)? = nil) {
        let initial: [Timer]? = control.state.withLock { state in
            guard case .idle(let timers) = state else { return nil }
            state = .running(added: [])
            return timers
        }
        guard let initial else { return }
        // The publisher's descriptor fires when its state changes (subscription changes among
        // them): the receive thread waits on it too and takes them then (`takePublisherChanges`).
        let publisherSignal = publisher.withLock { publisher -> Int32? in
            guard let fd = try? publisher.socket.signalDescriptor() else { return nil }
            publisher.watched = true
            return fd
        }
        let loop = ReceiveLoop(subscriber: subscriber, control: control, publisherSignal: publisherSignal,
                               takePublisherChanges: { [self] fired in publisher.withLock { $0.takeAfterWake(fired: fired) } },
                               onLine: onLine, onDrained: onDrained)
        let thread = Thread {
            loop.run(initial: initial)
            loop.control.finished.signal()
        }
        thread.name = "bus-client-receive"
        thread.start()
    }

    /// What the publisher knows of the subscriptions behind the broker (taken from its socket as
    /// they arrive; see `Publisher.takeIfSignalled()`).
    var subscriptionGroups: SubscriptionGroups { publisher.withLock { $0.groups } }

    /// Most messages taken before `onDrained` is called even though more are waiting.
    static let drainLimit = 1_000

    /// The receive thread's loop: the socket, the wake descriptor and the timers.
    private struct ReceiveLoop: @unchecked Sendable {
        // @unchecked: handed to the thread once at its start (the socket is the thread's from then on).
        let subscriber: ZMQSocket
        let control: Control
        /// The publisher's `ZMQ_FD` (nil: it could not be read; single publishes look instead).
        let publisherSignal: Int32?
        /// Takes the publisher's subscription changes if any wait (under its lock); the argument
        /// says whether its descriptor fired.
        let takePublisherChanges: @Sendable (_ fired: Bool) -> Void
        let onLine: @Sendable (_ topic: UnsafeRawBufferPointer, _ line: UnsafeRawBufferPointer) -> Void
        let onDrained: (@Sendable () -> Void)?

        func run(initial: [Timer]) {
            defer { subscriber.close() }
            var timers = OwnerTimers<@Sendable () -> Void>()
            var deriver = TopicDeriver()
            add(initial, to: &timers)
            while true {
                // A stop or a timer added: both arrive with a wake, and are looked at before waiting.
                let added: [Timer]? = control.state.withLock { state in
                    guard case .running(let added) = state else { return nil }
                    state = .running(added: [])
                    return added
                }
                guard let added else { return }
                add(added, to: &timers)
                let events: [ZMQPollEvents]
                var items: [ZMQPollItem] = [.socket(subscriber, .readable), .fileDescriptor(control.wake.readFD, .readable)]
                if let publisherSignal { items.append(.fileDescriptor(publisherSignal, .readable)) }
                do {
                    events = try ZMQPoll.poll(items, timeout: timers.timeout(now: .now))
                } catch {
                    return  // context shut down or socket failure
                }
                if events[1].contains(.readable) { control.wake.drain() }
                // The descriptor is edge-triggered and a publish on another thread may have taken
                // its signal while this thread slept: after such a publish, look at any wake-up.
                if publisherSignal != nil { takePublisherChanges(events[2].contains(.readable)) }
                for action in timers.fire(now: .now) { action() }
                if events[0].contains(.readable) {
                    do { try receiveWaiting(&deriver) } catch { return }
                }
            }
        }

        private func add(_ new: [Timer], to timers: inout OwnerTimers<@Sendable () -> Void>) {
            let now = ContinuousClock.now
            for timer in new { timers.add(at: now + timer.interval, every: timer.interval, timer.action) }
        }

        /// Hands out what is waiting (at most `drainLimit` messages), then calls `onDrained`. Each
        /// message is read in libzmq's own buffers (`receiveInPlace`): the only copies made are the
        /// ones `onLine` takes.
        private func receiveWaiting(_ deriver: inout TopicDeriver) throws(ZMQError) {
            var taken = 0
            while taken < BusClient.drainLimit {
                let received: Void? = try subscriber.receiveInPlace(blocking: false) { count, topic, payload in
                    guard count == 2 else { return }
                    BusClient.deliver(topic: topic, payload: payload, deriver: &deriver, to: onLine)
                }
                guard received != nil else { break }
                taken += 1
            }
            if taken > 0 { onDrained?() }
        }
    }

    /// Hands each line of a two-frame message to `onLine` (a one-line payload whole, even empty),
    /// in place. `deriver` is the receive thread's, reused from message to message.
    private static func deliver(topic frame: UnsafeRawBufferPointer, payload: UnsafeRawBufferPointer, deriver: inout TopicDeriver,
                                to onLine: (_ topic: UnsafeRawBufferPointer, _ line: UnsafeRawBufferPointer) -> Void) {
        if TopicBatch.isGroup(frame) {
            // A group frame (`T/`): lines of several topics, each line's own derived from it; a
            // line outside the group (which ZeroMQ's filter did not see) is dropped.
            TopicBatch.forEachLine(in: payload) { line in
                guard deriver.deriveTrusted(line), deriver.topic.starts(with: frame) else { return }
                deriver.topic.withUnsafeBytes { onLine($0, line) }
            }
            return
        }
        let batched = payload.baseAddress.map { memchr($0, 0x0A, payload.count) != nil } ?? false
        if !batched {
            onLine(frame, payload)
        } else {
            TopicBatch.forEachLine(in: payload) { onLine(frame, $0) }
        }
    }

    /// `start(onMessage:)`'s topic `String`, made again only when a line's topic differs from the
    /// one before (a batched message's lines share theirs). Used on the receive thread only.
    private final class TopicText: @unchecked Sendable {
        // @unchecked: `text` is read and written by the receive thread alone.
        private var text = ""

        func text(of topic: UnsafeRawBufferPointer) -> String {
            if !text.utf8.elementsEqual(topic) { text = String(decoding: topic, as: UTF8.self) }
            return text
        }
    }

    /// Publishes one JSON line under the topic derived from it. Returns false for a line that is
    /// not a JSON object with a string `type`.
    @discardableResult
    public func publish(_ line: [UInt8]) -> Bool {
        guard let topic = line.withUnsafeBytes({ Topic.derive(fromLine: $0) }) else { return false }
        return publisher.withLock { publisher in
            publisher.takeIfUnwatched()
            return (try? publisher.socket.send(topic: topic, payload: line)) ?? false
        }
    }

    @discardableResult
    public func publish(_ line: String) -> Bool { publish(Array(line.utf8)) }

    /// `publish(_:)` for a line this process wrote itself with `JSONWriter` (valid by construction):
    /// its topic is read from its first bytes (`TopicDeriver.deriveTrusted`), not from a scan of
    /// the whole line. The gateway publishes every viewport it rewrites this way.
    @discardableResult
    public func publish(ownLine line: [UInt8]) -> Bool {
        publisher.withLock { publisher in
            publisher.takeIfUnwatched()
            guard line.withUnsafeBytes({ publisher.ownDeriver.deriveTrusted($0) }) else { return false }
            let socket = publisher.socket
            return publisher.ownDeriver.topic.withUnsafeBytes { topic in
                line.withUnsafeBytes { payload in (try? socket.send(topicBytes: topic, payload: payload)) ?? false }
            }
        }
    }

    /// Publishes many lines at once, consecutive lines of one topic batched into one bus message
    /// (`TopicBatch`), and consecutive lines of one type coalesced under its group frame while no
    /// subscriber is narrower (`SubscriptionGroups`, learnt from the XPUB socket). Returns how many lines were taken (a line without a string `type` is not).
    @discardableResult
    public func publish(lines: [[UInt8]]) -> Int {
        var batch = TopicBatch()
        var deriver = TopicDeriver()
        var taken = 0
        return publisher.withLock { publisher in
            publisher.takeSubscriptions()
            batch.groups = publisher.groups
            let socket = publisher.socket
            let send: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) -> Void = { topic, payload in
                _ = try? socket.send(topicBytes: topic, payload: payload)
            }
            for line in lines {
                line.withUnsafeBytes { raw in
                    guard deriver.derive(raw) else { return }
                    taken += 1
                    deriver.topic.withUnsafeBytes { batch.add(topic: $0, line: raw, send: send) }
                }
            }
            batch.flush(send)
            return taken
        }
    }

    /// Stops receiving and closes the sockets (queued publishes get the socket's LINGER to leave).
    /// The receive thread is woken at once and has ended when this returns (so no `onMessage` or
    /// timer runs after it); not to be called from that thread.
    public func close() {
        let previous = control.state.withLock { state -> State in
            let previous = state
            state = .closed
            return previous
        }
        switch previous {
        case .running:
            // The receive thread stops first: it waits on the publisher's descriptor too.
            control.wake.signal()
            control.finished.wait()
        case .idle:
            subscriber.close()
        case .closed:
            return
        }
        publisher.withLock { $0.socket.close() }
        context.shutdown()
    }
}
