import ArgumentParser

enum Subcommands {
    static let all: [ParsableCommand.Type] = [
        BrokerCommand.self, PlugCommand.self, PersistCommand.self, FilterCommand.self, FormatCommand.self, AttachCommand.self,
    ]
}
