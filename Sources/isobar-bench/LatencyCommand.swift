import ArgumentParser

struct LatencyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "latency", abstract: "todo")
    func run() throws {}
}
