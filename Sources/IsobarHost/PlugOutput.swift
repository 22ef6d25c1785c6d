import Foundation
import IsobarCore
import Logging
import IsobarStdio

/// The threads that read a child's stdout (lines -> bus) and stderr (lines -> log).
///
/// Each runs until end of file on its pipe, which comes when the child (and any grandchild that
/// inherited the pipe) has exited, so every line written before exiting is still published. Each
/// reader closes its own pipe end.
enum PlugOutput {
    /// Size of one read; lines longer than this are assembled by `LineSplitter`.
    static let readSize = 64 * 1024

    /// Starts the stdout reader: every line is handed to `publisher` (see `PlugPublisher.publish(line:)`), which sends
    /// what one read brought as one batch per topic run;
    /// an over-long line becomes one `error` message. `group` is left when the pipe is drained.
    static func startStdoutReader(
        child: ChildProcess, publisher: PlugPublisher, stage: String, maxLineLength: Int,
        group: DispatchGroup, logger: Logger
    ) {
        group.enter()
        let thread = Thread {
            defer { group.leave() }
            var splitter = LineSplitter(maxLineLength: maxLineLength)
            let handle: (LineEvent) -> Void = { event in
                switch event {
                case .line(let line):
                    publisher.publish(line: line)
                case .tooLong(let length, let excerpt):
                    publisher.publish(error: ErrorMessage(
                        stage: stage, message: "output line of \(length) bytes is over the \(maxLineLength)-byte limit",
                        excerpt: excerpt, code: .lineTooLong))
                }
            }
            readUntilEOF(child.stdout, logger: logger, stage: stage, stream: "stdout") { chunk in
                splitter.append(chunk, handle)
                publisher.flush()
            }
            splitter.finish(handle)
            publisher.flush()
            child.stdout.close()
        }
        thread.name = "isobar-stdout-\(child.pid)"
        thread.start()
    }

    /// Starts the stderr reader: the command's lines are copied to plug's stderr unchanged (a
    /// stage's log lines carry their own time, level and label; wrapping them in plug's would
    /// name the stage twice more under `isobar up`, which prefixes each child's lines with its
    /// name). An over-long line is cut, with its length said.
    static func startStderrReader(child: ChildProcess, stage: String, group: DispatchGroup, logger: Logger) {
        group.enter()
        let thread = Thread {
            defer { group.leave() }
            let output = LineOutput.standardError
            var splitter = LineSplitter(maxLineLength: 64 * 1024)
            let handle: (LineEvent) -> Void = { event in
                switch event {
                case .line(let line):
                    output.write(Array(line) + [0x0A])
                case .tooLong(let length, let excerpt):
                    output.write(Array("\(excerpt) (\(length)-byte line shortened)\n".utf8))
                }
            }
            readUntilEOF(child.stderr, logger: logger, stage: stage, stream: "stderr") { chunk in
                splitter.append(chunk, handle)
                output.flush()
            }
            splitter.finish(handle)
            output.flush()
            child.stderr.close()
        }
        thread.name = "isobar-stderr-\(child.pid)"
        thread.start()
    }

    private static func readUntilEOF(
        _ pipe: ChildProcessPipe, logger: Logger, stage: String, stream: String,
        _ body: (UnsafeRawBufferPointer) -> Void
    ) {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: readSize, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let count: Int
            do {
                count = try pipe.read(into: buffer)
            } catch {
                logger.error("reading \(stream) failed: \(error)")
                return
            }
            if count == 0 { return }
            body(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
        }
    }
}
