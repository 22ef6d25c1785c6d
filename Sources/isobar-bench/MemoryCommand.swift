import ArgumentParser

struct MemoryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "memory", abstract: "todo")
    func run() throws {}
}
