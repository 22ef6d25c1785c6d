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

    init(socket: ZMQSocket, stage: String, logger: Logger) {
        self.socket = socket
        self.stage = stage
        self.logger = logger
    }

    /// Publishes one line COMMAND wrote on stdout, under the topic derived from it (`type`, plus
    /// `/client` when it has a string `client`). A line that is not a JSON object with a string `type`
    /// becomes one `error` message instead, so downstream sees that something was dropped, and why.
    func publish(line: UnsafeRawBufferPointer) {
        lock.lock()
        let valid = deriver.derive(line)
        if valid {
            deriver.topic.withUnsafeBytes { send(topicBytes: $0, payload: line) }
        }
        lock.unlock()
        if !valid {
            publish(error: ErrorMessage(
                stage: stage, message: "output line is not a JSON object with a string \"type\"", line: line))
        }
    }

    /// Publishes an `error` message about COMMAND's output and logs it.
    func publish(error: ErrorMessage) {
        logger.warning("\(stage): \(error.message): \(error.excerpt)")
        let payload = Array(error.jsonLine.utf8)
        payload.withUnsafeBytes { send(topic: "error", payload: $0) }
    }

    private func send(topic: String, payload: UnsafeRawBufferPointer) {
        lock.lock()
        defer { lock.unlock() }
        Array(topic.utf8).withUnsafeBytes { send(topicBytes: $0, payload: payload) }
    }

    /// Sends one message; the caller holds `lock`.
    private func send(topicBytes: UnsafeRawBufferPointer, payload: UnsafeRawBufferPointer) {
        do {
            // PUB never blocks: at the high-water mark (the broker is gone or slow) libzmq drops.
            try socket.send(topicBytes: topicBytes, payload: payload)
        } catch {
            if !sendFailureLogged {
                sendFailureLogged = true
                logger.error("\(stage): cannot publish: \(error)")
            }
        }
    }

    /// Closes the socket, giving queued messages up to `linger` to reach the broker (libzmq sends them
    /// while the context terminates). Later `publish` calls are dropped.
    func close(linger: Duration) {
        lock.lock()
        defer { lock.unlock() }
        let milliseconds = Int32(clamping: linger.components.seconds * 1000 + linger.components.attoseconds / 1_000_000_000_000_000)
        try? socket.set(.linger(milliseconds: milliseconds))
        socket.close()
        sendFailureLogged = true
    }
}
