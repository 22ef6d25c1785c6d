import Foundation
import IsobarBus
import Logging

/// The thread that owns the plug's SUB socket and the running child's stdin: every two-frame message
/// received on the subscribed topics is written to stdin as its JSON line (or lines, for a batch)
/// plus `\n`.
///
/// It is the only thread that writes to or closes a child's stdin, so a descriptor is never closed
/// under a write. It asks the `Plug` which child is current each turn and again whenever a message
/// arrives while it holds none: when that changes (the child exited, a new one started, shutdown
/// began) it closes the old stdin, which is how a child sees end of input. While no child runs,
/// messages are held (up to `pendingLimit` bytes) and handed to the next child in order; so are
/// those a write to a dying child could not put into its pipe (EPIPE; SIGPIPE is ignored). A stage
/// restart therefore loses only what was already in the dead child's pipe or in its hands; beyond
/// the bound messages are dropped and counted in the log.
///
/// It waits in `zmq_poll` on the socket and the plug's wake pipe with no timeout: every change of the
/// plug's state (a child started or exited, the stop) signals the pipe, so it looks exactly then.
///
/// Why a thread: the blocking C calls `zmq_poll`/`zmq_msg_recv` (a libzmq socket belongs to one
/// thread, and libzmq has no async form) and `write(2)` into the child's stdin pipe, which blocks
/// while a slow child has not read (that back-pressure is what bounds the plug's memory).
enum PlugInput {
    /// Most bytes held for the next child while none runs (a restart's backoff is at most seconds).
    static let pendingLimit = 8 << 20

    /// Starts the loop; `done` is signalled after it has closed the socket and the last stdin.
    static func start(socket: ZMQSocket, plug: Plug, stage: String, logger: Logger, done: Latch) {
        let thread = Thread {
            var loop = Loop(plug: plug, stage: stage, logger: logger)
            loop.run(socket: socket)
            done.raise()
        }
        thread.name = "isobar-input"
        thread.start()
    }

    /// The loop's state: the child it writes to and what waits for the next one.
    private struct Loop {
        let plug: Plug
        let stage: String
        let logger: Logger
        var current: SupervisedProcess.Running?
        /// Complete lines received while no child could take them.
        var pending: [UInt8] = []
        var dropped = 0
        var batch: [UInt8] = []

        init(plug: Plug, stage: String, logger: Logger) {
            self.plug = plug
            self.stage = stage
            self.logger = logger
            batch.reserveCapacity(80 * 1024)
        }

        /// A child that can take input now, if any.
        var writable: ChildProcessPipe? {
            guard let stdin = current?.stdin, !stdin.isClosed else { return nil }
            return stdin
        }

        /// Follows the plug's current child; returns true when shutdown has begun.
        mutating func refresh() -> Bool {
            let (child, shuttingDown) = plug.inputTarget()
            if current !== child {
                current?.stdin?.close()
                current = child
                if child != nil && dropped > 0 {
                    logger.warning("dropped \(dropped) message(s) while the command was not running (more than \(PlugInput.pendingLimit) bytes waited)")
                    dropped = 0
                }
            }
            return shuttingDown
        }

        mutating func run(socket: ZMQSocket) {
            defer {
                current?.stdin?.close()
                socket.close()
            }
            while true {
                // The deferred close above ends the stopping child's input, even one this thread
                // never wrote to (shutdown came before it looked).
                if refresh() { return }
                if !pending.isEmpty, let target = writable {
                    let held = pending
                    pending.removeAll()
                    write(held, to: target)
                }

                do {
                    let events = try ZMQPoll.poll([.socket(socket, .readable), .fileDescriptor(plug.wake.readFD, .readable)], timeout: nil)
                    if events[1].contains(.readable) { plug.wake.drain() }
                    guard events[0].contains(.readable) else { continue }
                } catch {
                    if !error.isTerminated { logger.error("receiving from the broker failed: \(error)") }
                    return
                }
                // Take whatever is queued (up to ~64 KiB) and hand it to the command in one write:
                // one syscall per burst instead of one per message, and no copy but into the batch.
                batch.removeAll(keepingCapacity: true)
                var terminated = false
                while batch.count < 64 * 1024 {
                    do {
                        let got: Void? = try socket.receiveInPlace(blocking: false) { count, topic, line in
                            PlugInput.append(count: count, topic: topic, line: line, to: &batch, stage: stage, logger: logger)
                        }
                        if got == nil { break }
                    } catch {
                        if !error.isTerminated { logger.error("receiving from the broker failed: \(error)") }
                        terminated = true
                        break
                    }
                }
                // The child may have died, been replaced or begun stopping during the wait: look
                // again (one lock) before deciding where the batch goes.
                if refresh() { return }
                if let target = writable, pending.isEmpty {
                    write(batch, to: target)
                } else {
                    hold(batch)
                }
                if terminated { return }
            }
        }

        mutating func hold(_ lines: [UInt8]) {
            guard !lines.isEmpty else { return }
            if pending.isEmpty && dropped == 0 {
                logger.warning("the command is not running; holding messages for its restart")
            }
            keep(lines[...], first: false)
        }

        /// Adds whole lines to `pending` (in front of it when `first`: they were received earlier),
        /// or counts them as dropped when that would pass `pendingLimit`.
        mutating func keep(_ lines: ArraySlice<UInt8>, first: Bool) {
            guard pending.count + lines.count <= PlugInput.pendingLimit else {
                dropped += lines.reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
                return
            }
            if first { pending.insert(contentsOf: lines, at: 0) } else { pending.append(contentsOf: lines) }
        }

        /// Writes `lines` to the child; what did not go into its pipe (it died or closed its stdin) is
        /// held, ahead of anything already held, for the next child.
        mutating func write(_ lines: [UInt8], to target: ChildProcessPipe) {
            guard !lines.isEmpty else { return }
            var written = 0
            do {
                try lines.withUnsafeBytes { try target.writeAll($0, written: &written) }
            } catch {
                if (error as? ChildProcessPipeError)?.isBrokenPipe == true {
                    logger.warning("the command closed its stdin or exited; holding messages until it restarts")
                } else {
                    logger.error("writing to the command's stdin failed: \(error)")
                }
                target.close()
                // Lines are whole in `lines`; a line cut by the failure went partly to the dead
                // child and is not resent (its start is gone), so resume after the next newline.
                var resume = written
                if resume > 0 && lines[resume - 1] != 0x0A {
                    while resume < lines.count && lines[resume] != 0x0A { resume += 1 }
                    resume += 1
                }
                if resume < lines.count { keep(lines[resume...], first: true) }
            }
        }
    }

    /// Appends one bus message's lines (one, or a batch joined by `\n`; see `TopicBatch`), each
    /// ending in `\n`, skipping (with a log line) what is not a two-frame message.
    static func append(count: Int, topic: UnsafeRawBufferPointer, line: UnsafeRawBufferPointer,
                       to batch: inout [UInt8], stage: String, logger: Logger) {
        guard count == 2 else {
            logger.warning("ignoring a \(count)-frame message on topic \(String(decoding: topic, as: UTF8.self))")
            return
        }
        guard !line.isEmpty else { return }
        batch.append(contentsOf: line)
        if line[line.count - 1] != 0x0A { batch.append(0x0A) }
    }
}
