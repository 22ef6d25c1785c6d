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
            guard let message = received else { continue }
            guard message.isTopicAndPayload else {
                logger.warning("\(stage): ignoring a \(message.frames.count)-frame message on topic \(message.topic)")
                continue
            }
            var line = message.payload
            if line.contains(0x0A) {
                logger.warning("\(stage): ignoring a message on topic \(message.topic) with a newline inside its JSON")
                continue
            }
            guard let target = current, !target.stdin.isClosed else {
                if dropped == 0 { logger.warning("\(stage): the command is not running; dropping messages until it is") }
                dropped += 1
                continue
            }
            line.append(0x0A)
            do {
                try line.withUnsafeBytes { try target.stdin.writeAll($0) }
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
    }
}
