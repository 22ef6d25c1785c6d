import ArgumentParser

struct DenseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "dense", abstract: "todo")
    func run() throws {}
}
