import ArgumentParser

struct ClientsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "clients", abstract: "todo")
    func run() throws {}
}
