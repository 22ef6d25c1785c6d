import ArgumentParser

enum Subcommands {
    static let all: [ParsableCommand.Type] = [
        UpCommand.self, BrokerCommand.self, PlugCommand.self, PersistCommand.self, FilterCommand.self, FormatCommand.self, PlacesCommand.self, AttachCommand.self, FetchCommand.self, ForecastCommand.self, SampleFeedCommand.self, KeygenCommand.self, GatewayCommand.self, ConformanceCommand.self,
    ]
}
