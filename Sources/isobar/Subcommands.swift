import ArgumentParser

enum Subcommands {
    static let all: [ParsableCommand.Type] = [
        FilterCommand.self, FormatCommand.self,
    ]
}
