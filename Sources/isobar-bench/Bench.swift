import ArgumentParser

/// `isobar-bench`: benchmark programs that print tables (see BENCHMARKS.md). Never timed tests.
/// The benchmarks that run processes or wait for answers are async commands: every wait is an
/// `await` on the event waited for (an answer applied, a child's line, a count reached), its
/// deadline a timer racing it (``Mailbox``, ``Changes``), never a thread parked on a semaphore.
@main
struct Bench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "isobar-bench",
        abstract: "Isobar's benchmarks: each subcommand runs one, repeated, and prints a table (median, min, max).",
        subcommands: [GenCommand.self, BusHopCommand.self, PipeFilterCommand.self, LatencyCommand.self, ClientApplyCommand.self,
                      ClientsCommand.self, DenseCommand.self, MemoryCommand.self, PassThroughCommand.self, GatewayBenchCommand.self,
                      FindCommand.self, FetchBenchCommand.self, ClientMemoryCommand.self, PlacesBenchCommand.self,
                      CountedCommand.self, WeatherBenchCommand.self, FormatReplayCommand.self,
                      FilterInputCommand.self, FilterReplayCommand.self])

    static func main() async {
        Children.installSignalHandlers()
        do {
            var command = try parseAsRoot()
            if var command = command as? any AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
        } catch {
            exit(withError: error)
        }
    }
}

/// Options shared by the benchmarks.
struct CommonOptions: ParsableArguments {
    @Option(help: "How many times to repeat the measurement (the table shows median, min, max).")
    var runs = 5
    @Option(help: "The isobar binary (default: next to isobar-bench).")
    var isobar: String?
    @Option(help: "The world station CSV that generated stations are jittered from.")
    var world = Paths.defaultWorld
    @Option(help: "Seed for generated stations and pans.")
    var seed: UInt64 = 42
    @Flag(help: "Run the filter and the formatter under `isobar plug` (stdin/stdout) instead of in process on the bus, as `isobar up --plugs` does.")
    var plugs = false
    @Flag(help: "Chain the formatter behind each filter in its process (`isobar filter --chain-format`, as `isobar up --chain-format` runs them) instead of a separate formatter.")
    var chainFormat = false
}
