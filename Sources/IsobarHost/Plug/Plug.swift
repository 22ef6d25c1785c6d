import IsobarBusClient
import IsobarCore
import IsobarStdio
import Logging

/// A plug's command: one ``SupervisedProcess`` whose stdin is a pipe that the input thread
/// (`PlugInput`, the owner of the SUB socket) writes the bus's messages to, whose stdout lines are
/// published (`PlugPublisher`; an over-long line becomes one `error` message), and whose stderr
/// is copied to plug's own unchanged (a stage's log lines carry their own time, level and label;
/// `isobar up` prefixes each child's lines with its name). Restarts, the stop and its teardown
/// sequence (stdin closed, SIGTERM, SIGKILL to its group) are the supervised process's.
final class Plug: Sendable {
    let process: SupervisedProcess
    /// Wakes the input thread, which waits in `zmq_poll` on its socket and this pipe with no
    /// timeout, whenever the current run changes (a start, an exit, the stop).
    let wake: WakePipe

    init(options: PlugOptions, publisher: PlugPublisher, wake: WakePipe, logger: Logger) {
        self.wake = wake
        let stage = options.displayName
        let maxLineLength = options.maxLineLength
        let output = LineOutput.standardError
        // The readiness file is plug's own: its command must not write it.
        process = SupervisedProcess(
            name: options.command, command: options.command, arguments: options.arguments,
            environment: [Readiness.fileVariable: ""], pipesStdin: true, backoff: options.backoff, restart: options.restart,
            teardown: .init(stdinCloseGrace: options.stdinCloseGrace, terminateGrace: options.terminateGrace),
            maxLineLength: maxLineLength, logger: logger
        ) { stream, event in
            switch (stream, event) {
            case (.standardOutput, .line(let line)):
                publisher.publish(line: line)
            case (.standardOutput, .tooLong(let length, let excerpt)):
                publisher.publish(error: ErrorMessage(
                    stage: stage, message: "output line of \(length) bytes is over the \(maxLineLength)-byte limit",
                    excerpt: excerpt, code: .lineTooLong))
            case (.standardError, .line(let line)):
                output.write(Array(line) + [0x0A])
            case (.standardError, .tooLong(let length, let excerpt)):
                output.write(Array("\(excerpt) (\(length)-byte line shortened)\n".utf8))
            }
        } flush: { stream in
            if stream == .standardOutput { publisher.flush() } else { _ = output.flush() }
        } onEvent: { event in
            switch event {
            case .started(let pid): Readiness.announce(logger, "started \(options.command) (pid \(pid))")
            case .exited: Readiness.withdraw()
            }
        } onChange: {
            wake.signal()
        }
    }

    /// For the input thread: the run whose stdin it should hold (nil while none runs), and whether
    /// shutdown has begun (then that stdin is to be closed, not written).
    func inputTarget() -> (running: SupervisedProcess.Running?, shuttingDown: Bool) {
        process.current
    }
}
