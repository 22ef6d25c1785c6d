import Foundation
import IsobarBus
import Logging

/// The thread that owns the plug's SUB socket and the running child's stdin: every two-frame message
/// received on the subscribed topics is written to stdin as its JSON line plus `\n`.
///
/// It is the only thread that writes to or closes a child's stdin, so a descriptor is never closed
/// under a write. Each turn it asks the `Plug` which child is current: when that changes (the child
/// exited, a new one started, shutdown began) it closes the old stdin, which is how a child sees end
/// of input. While no child runs, messages are dropped and counted in the log; a write that fails
/// because the child died (EPIPE; SIGPIPE is ignored) is dropped the same way, never fatal.
enum PlugInput {
    /// How often the loop looks at the plug's state when no message arrives.
    static let pollInterval: Duration = .milliseconds(100)

    /// Starts the loop; `done` is signalled after it has closed the socket and the last stdin.
    static func start(socket: ZMQSocket, plug: Plug, stage: String, logger: Logger, done: DispatchSemaphore) {
        let thread = Thread {
            run(socket: socket, plug: plug, stage: stage, logger: logger)
            done.signal()
        }
        thread.name = "isobar-input"
        thread.start()
    }

    private static func run(socket: ZMQSocket, plug: Plug, stage: String, logger: Logger) {
        var current: ChildProcess?
        var dropped = 0
        var batch: [UInt8] = []
        batch.reserveCapacity(80 * 1024)
        defer {
            current?.stdin.close()
            socket.close()
        }
        while true {
            let (child, shuttingDown) = plug.inputTarget()
            if current !== child {
                current?.stdin.close()
                current = child
                if child != nil && dropped > 0 {
                    logger.warning("\(stage): dropped \(dropped) message(s) while the command was not running")
                    dropped = 0
                }
            }
            // The deferred close above ends the stopping child's input, even one this thread never
            // wrote to (shutdown came before it looked).
            if shuttingDown { return }

            let received: ZMQMessage?
            do {
                received = try socket.receiveMessage(timeout: pollInterval)
            } catch {
                if !error.isTerminated { logger.error("\(stage): receiving from the broker failed: \(error)") }
                return
            }
            guard let first = received else { continue }
            guard let target = current, !target.stdin.isClosed else {
                if dropped == 0 { logger.warning("\(stage): the command is not running; dropping messages until it is") }
                dropped += 1
                continue
            }
            // Take whatever else is already queued (up to ~64 KiB) and hand it to the command in one
            // write: one syscall per burst instead of one per message.
            batch.removeAll(keepingCapacity: true)
            var message: ZMQMessage? = first
            var terminated = false
            while let next = message {
                append(next, to: &batch, stage: stage, logger: logger)
                guard batch.count < 64 * 1024 else { break }
                do {
                    message = try socket.receiveMessageNonBlocking()
                } catch {
                    terminated = true
                    message = nil
                }
            }
            if !batch.isEmpty {
                do {
                    try batch.withUnsafeBytes { try target.stdin.writeAll($0) }
                } catch {
                    if (error as? ChildProcessPipeError)?.isBrokenPipe == true {
                        logger.warning("\(stage): the command closed its stdin or exited; dropping messages until it restarts")
                    } else {
                        logger.error("\(stage): writing to the command's stdin failed: \(error)")
                    }
                    target.stdin.close()
                    dropped += 1
                }
            }
            if terminated { return }
        }
    }

    /// Appends one bus message's JSON line plus `\n`, skipping (with a log line) what is not one.
    private static func append(_ message: ZMQMessage, to batch: inout [UInt8], stage: String, logger: Logger) {
        guard message.isTopicAndPayload else {
            logger.warning("\(stage): ignoring a \(message.frames.count)-frame message on topic \(message.topic)")
            return
        }
        let line = message.frames[1]
        if line.contains(0x0A) {
            logger.warning("\(stage): ignoring a message on topic \(message.topic) with a newline inside its JSON")
            return
        }
        batch.append(contentsOf: line)
        batch.append(0x0A)
    }
}
