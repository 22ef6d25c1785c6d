import Foundation
import IsobarBus
import IsobarCore
import Logging
import Synchronization

/// The plug's PUB socket, shared by the stdout readers of successive children (an old child's reader
/// may still be draining when its successor starts), hence the mutex: libzmq sockets are not
/// thread-safe, and a lock is the full memory barrier that makes handing a socket between threads legal.
///
/// `@unchecked Sendable`: the socket is only touched with `shared` locked (its state is in it).
final class PlugPublisher: @unchecked Sendable {
    /// What the lock guards besides the socket.
    private struct Shared {
        var sendFailureLogged = false
        /// Validates each line and finds its topic with buffers reused across lines.
        var deriver = TopicDeriver()
        /// Lines taken but not yet sent (see `publish(line:)`).
        var batch = TopicBatch()
    }

    private let shared = Mutex(Shared())
    private let socket: ZMQSocket
    private let stage: String
    private let logger: Logger

    init(socket: ZMQSocket, stage: String, logger: Logger, coalescing: Bool = false) {
        self.socket = socket
        self.stage = stage
        self.logger = logger
        if coalescing { shared.withLock { $0.batch.groups = SubscriptionGroups() } }
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
        let valid = shared.withLock { shared -> Bool in
            let valid = trusted ? shared.deriver.deriveTrusted(line) : shared.deriver.derive(line)
            if valid {
                let topic = shared.deriver.topic
                var failed = shared.sendFailureLogged
                topic.withUnsafeBytes { topic in
                    shared.batch.add(topic: topic, line: line) { send(topicBytes: $0, payload: $1, failureLogged: &failed) }
                }
                shared.sendFailureLogged = failed
            }
            return valid
        }
        if !valid { publish(error: notAnObject(line)) }
    }

    /// Publishes every line of `lines` (`\n`-terminated, written by the project's own engine in
    /// this process: trusted, see `publish(line:trusted:)`) and flushes, under one lock: what
    /// `BusStage` does after each burst. With coalescing (an XPUB socket), takes the subscription
    /// changes waiting on the socket first, so that lines are coalesced only where no subscriber
    /// is narrower than the group (`SubscriptionGroups`). The same messages as
    /// `publish(line:trusted: true)` per line then `flush()`, without a lock per line.
    func publishTrusted(lines: UnsafeRawBufferPointer) {
        shared.withLock { shared in
            shared.batch.groups?.take(from: socket)
            var failed = shared.sendFailureLogged
            TopicBatch.forEachLine(in: lines) { line in
                guard shared.deriver.deriveTrusted(line) else {
                    shared.sendFailureLogged = failed
                    publishLocked(error: notAnObject(line), &shared)
                    failed = shared.sendFailureLogged
                    return
                }
                let topic = shared.deriver.topic
                topic.withUnsafeBytes { topic in
                    shared.batch.add(topic: topic, line: line) { send(topicBytes: $0, payload: $1, failureLogged: &failed) }
                }
            }
            shared.batch.flush { send(topicBytes: $0, payload: $1, failureLogged: &failed) }
            shared.sendFailureLogged = failed
        }
    }

    /// The `error` message for an output line that is not a JSON object with a string `type`.
    private func notAnObject(_ line: UnsafeRawBufferPointer) -> ErrorMessage {
        ErrorMessage(stage: stage, message: "output line is not a JSON object with a string \"type\"", line: line, code: .notJSON)
    }

    /// Sends the lines taken since the last flush.
    func flush() {
        shared.withLock { flushLocked(&$0) }
    }

    /// Publishes an `error` message about COMMAND's output and logs it (after the lines before it).
    func publish(error: ErrorMessage) {
        shared.withLock { publishLocked(error: error, &$0) }
    }

    /// `publish(error:)` with the lock held.
    private func publishLocked(error: ErrorMessage, _ shared: inout Shared) {
        logger.warning("\(error.message): \(error.excerpt)")
        let payload = Array(error.jsonLine.utf8)
        let topic = Array("error".utf8)
        flushLocked(&shared)
        topic.withUnsafeBytes { topicBytes in
            payload.withUnsafeBytes { send(topicBytes: topicBytes, payload: $0, failureLogged: &shared.sendFailureLogged) }
        }
    }

    private func flushLocked(_ shared: inout Shared) {
        var failed = shared.sendFailureLogged
        shared.batch.flush { send(topicBytes: $0, payload: $1, failureLogged: &failed) }
        shared.sendFailureLogged = failed
    }

    /// Sends one message; the caller holds the lock.
    private func send(topicBytes: UnsafeRawBufferPointer, payload: UnsafeRawBufferPointer, failureLogged: inout Bool) {
        do {
            // PUB never blocks: at the high-water mark (the broker is gone or slow) libzmq drops.
            try socket.send(topicBytes: topicBytes, payload: payload)
        } catch {
            if !failureLogged {
                failureLogged = true
                logger.error("cannot publish: \(error)")
            }
        }
    }

    /// Closes the socket, giving queued messages up to `linger` to reach the broker (libzmq sends them
    /// while the context terminates). Later `publish` calls are dropped.
    func close(linger: Duration) {
        shared.withLock { shared in
            flushLocked(&shared)
            let milliseconds = Int32(max(0, min(linger.timeInterval * 1000, Double(Int32.max))))
            try? socket.set(.linger(milliseconds: milliseconds))
            socket.close()
            shared.sendFailureLogged = true
        }
    }
}
