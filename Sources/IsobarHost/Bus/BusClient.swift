import Foundation
import IsobarBus
import IsobarCore
import Logging

/// A bus participant that is not a stage: it publishes lines and receives messages on some topics.
/// Used by `isobar attach` and by tests and benchmarks that act as map clients.
///
/// Receiving runs on a dedicated thread (never the Swift concurrency pool); `onMessage` is called
/// there with the topic and each JSON line (a batched bus message, see `TopicBatch`, is split).
/// Publishing is thread-safe (one lock around the PUB socket).
public final class BusClient: @unchecked Sendable {
    // @unchecked: `publisher` is only used under `lock`; `subscriber` only on the receive thread
    // after `start`; `context` is thread-safe in libzmq.
    private let context: ZMQContext
    private let publisher: ZMQSocket
    private let subscriber: ZMQSocket
    private let lock = NSLock()
    /// `publish(ownLine:)`'s topic buffer, reused (under `lock`).
    private var ownDeriver = TopicDeriver()
    private var thread: Thread?
    private let done = DispatchSemaphore(value: 0)

    /// Connects to the broker at `endpoints` and subscribes to `topics`. When the environment configures
    /// CURVE (`ISOBAR_CURVE_SERVERKEY`, `ISOBAR_CURVE_SECRETKEY`; see `BusSecurity`), both sockets are
    /// CURVE clients; a misconfiguration throws an `EINVAL` error that says what is wrong.
    public init(endpoints: BrokerEndpoints = .fromEnvironment(), topics: [String]) throws(ZMQError) {
        let options = try BusSecurity.connectingSocketOptions()
        context = try ZMQContext()
        publisher = try ZMQSocket(context, .pub, options: options)
        subscriber = try ZMQSocket(context, .sub, options: options)
        try publisher.connect(endpoints.frontend)
        try subscriber.connect(endpoints.backend)
        for topic in topics { try subscriber.subscribe(topic) }
    }

    /// Starts the receive thread. It ends when `close()` is called.
    ///
    /// `onDrained`, when given, is called on the same thread each time the messages that were
    /// waiting have all been handed to `onMessage` (before blocking for the next one), and at least
    /// every `drainLimit` messages under a steady stream: a client that answers messages with
    /// messages of its own can send its answers there as one burst.
    public func start(onMessage: @escaping @Sendable (_ topic: String, _ payload: [UInt8]) -> Void,
                      onDrained: (@Sendable () -> Void)? = nil) {
        let subscriber = self.subscriber
        let done = self.done
        let thread = Thread {
            while true {
                do {
                    guard var message = try subscriber.receiveMessage(timeout: .milliseconds(500)) else { continue }
                    var taken = 1
                    while true {
                        Self.deliver(message, to: onMessage)
                        guard taken < Self.drainLimit, let more = try subscriber.receiveMessageNonBlocking() else { break }
                        message = more
                        taken += 1
                    }
                    onDrained?()
                } catch {
                    break  // context shut down (close) or socket failure
                }
            }
            subscriber.close()
            done.signal()
        }
        thread.name = "bus-client-receive"
        self.thread = thread
        thread.start()
    }

    /// Most messages taken before `onDrained` is called even though more are waiting.
    static let drainLimit = 1_000

    /// Hands each line of a two-frame message to `onMessage` (a one-line payload without a copy).
    private static func deliver(_ message: ZMQMessage, to onMessage: (_ topic: String, _ payload: [UInt8]) -> Void) {
        guard message.isTopicAndPayload else { return }
        let topic = message.topic
        let payload = message.payload
        let batched = payload.withUnsafeBytes { raw in
            raw.baseAddress.map { memchr($0, 0x0A, raw.count) != nil } ?? false
        }
        if !batched {
            onMessage(topic, payload)
        } else {
            for line in TopicBatch.lines(of: payload) { onMessage(topic, line) }
        }
    }

    /// Publishes one JSON line under the topic derived from it. Returns false for a line that is
    /// not a JSON object with a string `type`.
    @discardableResult
    public func publish(_ line: [UInt8]) -> Bool {
        guard let topic = line.withUnsafeBytes({ Topic.derive(fromLine: $0) }) else { return false }
        lock.lock()
        defer { lock.unlock() }
        return (try? publisher.send(topic: topic, payload: line)) ?? false
    }

    @discardableResult
    public func publish(_ line: String) -> Bool { publish(Array(line.utf8)) }

    /// `publish(_:)` for a line this process wrote itself with `JSONWriter` (valid by construction):
    /// its topic is read from its first bytes (`TopicDeriver.deriveTrusted`), not from a scan of
    /// the whole line. The gateway publishes every viewport it rewrites this way.
    @discardableResult
    public func publish(ownLine line: [UInt8]) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard line.withUnsafeBytes({ ownDeriver.deriveTrusted($0) }) else { return false }
        return ownDeriver.topic.withUnsafeBytes { topic in
            line.withUnsafeBytes { payload in (try? publisher.send(topicBytes: topic, payload: payload)) ?? false }
        }
    }

    /// Publishes many lines at once, consecutive lines of one topic batched into one bus message
    /// (`TopicBatch`). Returns how many lines were taken (a line without a string `type` is not).
    @discardableResult
    public func publish(lines: [[UInt8]]) -> Int {
        var batch = TopicBatch()
        var deriver = TopicDeriver()
        var taken = 0
        lock.lock()
        defer { lock.unlock() }
        let send: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) -> Void = { [publisher] topic, payload in
            _ = try? publisher.send(topicBytes: topic, payload: payload)
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

    /// Stops receiving and closes the sockets (queued publishes get the socket's LINGER to leave).
    public func close() {
        lock.lock()
        publisher.close()
        lock.unlock()
        if thread != nil {
            context.shutdown()
            done.wait()
            thread = nil
        } else {
            subscriber.close()
            context.shutdown()
        }
    }
}
