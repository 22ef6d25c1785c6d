import Foundation
import IsobarBus
import IsobarCore
import Logging

/// The plug's PUB socket, shared by the stdout readers of successive children (an old child's reader
/// may still be draining when its successor starts), hence the lock: libzmq sockets are not thread-safe,
/// and a lock is the full memory barrier that makes handing a socket between threads legal.
///
/// `@unchecked Sendable`: the socket and counters are only touched under `lock`.
final class PlugPublisher: @unchecked Sendable {
    private let lock = NSLock()
    private let socket: ZMQSocket
    private let stage: String
    private let logger: Logger
    private var sendFailureLogged = false
    /// Validates each line and finds its topic with buffers reused across lines.
    private var deriver = TopicDeriver()
    /// Lines taken but not yet sent (see `publish(line:)`).
    private var batch = TopicBatch()

    init(socket: ZMQSocket, stage: String, logger: Logger) {
        self.socket = socket
        self.stage = stage
        self.logger = logger
    }

    /// Takes one line COMMAND wrote on stdout, under the topic derived from it (`type`, plus
    /// `/client` when it has a string `client`). A line that is not a JSON object with a string `type`
    /// becomes one `error` message instead, so downstream sees that something was dropped, and why.
    ///
    /// Lines are batched (`TopicBatch`): consecutive lines of one topic leave as one bus message when
    /// `flush()` is called, which the stdout reader does after every read, so nothing waits.
    ///
    /// `trusted`: the line comes from the project's own engine in this process (`BusStage`), valid
    /// by construction, so its topic is read from its first bytes (`TopicDeriver.deriveTrusted`)
    /// instead of scanning it all again; a stage's stdout is never trusted.
    func publish(line: UnsafeRawBufferPointer, trusted: Bool = false) {
        lock.lock()
        let valid = trusted ? deriver.deriveTrusted(line) : deriver.derive(line)
        if valid {
            deriver.topic.withUnsafeBytes { topic in
                batch.add(topic: topic, line: line) { send(topicBytes: $0, payload: $1) }
            }
        }
        lock.unlock()
        if !valid {
            publish(error: ErrorMessage(
                stage: stage, message: "output line is not a JSON object with a string \"type\"", line: line, code: .notJSON))
        }
    }

    /// Sends the lines taken since the last flush.
    func flush() {
        lock.lock()
        defer { lock.unlock() }
        flushLocked()
    }

    /// Publishes an `error` message about COMMAND's output and logs it (after the lines before it).
    func publish(error: ErrorMessage) {
        logger.warning("\(error.message): \(error.excerpt)")
        let payload = Array(error.jsonLine.utf8)
        let topic = Array("error".utf8)
        lock.lock()
        defer { lock.unlock() }
        flushLocked()
        topic.withUnsafeBytes { topicBytes in
            payload.withUnsafeBytes { send(topicBytes: topicBytes, payload: $0) }
        }
    }

    private func flushLocked() {
        batch.flush { send(topicBytes: $0, payload: $1) }
    }

    /// Sends one message; the caller holds `lock`.
    private func send(topicBytes: UnsafeRawBufferPointer, payload: UnsafeRawBufferPointer) {
        do {
            // PUB never blocks: at the high-water mark (the broker is gone or slow) libzmq drops.
            try socket.send(topicBytes: topicBytes, payload: payload)
        } catch {
            if !sendFailureLogged {
                sendFailureLogged = true
                logger.error("cannot publish: \(error)")
            }
        }
    }

    /// Closes the socket, giving queued messages up to `linger` to reach the broker (libzmq sends them
    /// while the context terminates). Later `publish` calls are dropped.
    func close(linger: Duration) {
        lock.lock()
        defer { lock.unlock() }
        flushLocked()
        let milliseconds = Int32(max(0, min(linger.timeInterval * 1000, Double(Int32.max))))
        try? socket.set(.linger(milliseconds: milliseconds))
        socket.close()
        sendFailureLogged = true
    }
}
