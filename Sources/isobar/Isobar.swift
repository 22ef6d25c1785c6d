import ArgumentParser
import IsobarHost
import Logging

/// The `isobar` command: every process of the pipeline is one of its subcommands.
@main
struct Isobar: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "isobar",
        abstract: "Live weather-station annotations for map clients, as a pipeline of NDJSON stages on a ZeroMQ bus.",
        discussion: """
        Every stage reads NDJSON on stdin and writes NDJSON on stdout, so stages work in a plain pipe:
          isobar fetch --once --today Fixtures/today.json --tomorrow Fixtures/tomorrow.json \\
            | isobar filter --viewport 40.924,-108.0955,25,20 | isobar format
        On the bus, `isobar plug` hosts any such program; `isobar up` runs the whole pipeline.
        The protocol is documented in PROTOCOL.md.
        """,
        subcommands: Subcommands.all
    )

    /// Every `isobar` process started by another one (`up`, `plug`, a benchmark, a test) ends when
    /// that one ends (`ParentWatch`), then runs its subcommand.
    static func main() async {
        ParentWatch.start()
        await main(nil)
    }
}

/// Logs go to stderr (stdout carries protocol lines only).
enum Logs {
    static func bootstrap(level: Logger.Level = .info) {
        LoggingSystem.bootstrap { label in
            IsobarLogHandler(label: label, level: level)
        }
    }
}
