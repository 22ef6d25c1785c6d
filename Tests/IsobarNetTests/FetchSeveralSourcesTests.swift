import Foundation
import IsobarCore
import IsobarNet
import Testing

/// Several feeds at once (issue 14): `--today` repeated with `FORMAT+SOURCE`, every source's
/// stations joined into one snapshot per day with ids prefixed by their source's label.
@Suite struct FetchSeveralSourcesTests {
    static func feed(_ name: String) -> String { TestSupport.fixtures + "/feeds/" + name }

    @Test func oneFeedOfEachFormatMakeOneSnapshotPerDay() async throws {
        var options = FetchOptions(today: TestSupport.fixture(.today), tomorrow: TestSupport.fixture(.tomorrow), once: true)
        options.moreToday = ["darksky+" + Self.feed("darksky.json"), "airvisual+" + Self.feed("airvisual.json"),
                             "openweather+" + Self.feed("openweather-group.json")]
        options.moreTomorrow = ["darksky+" + Self.feed("darksky.json")]
        try await TestSupport.withFetcher(options) { fetcher, output throws in
            #expect(await fetcher.round())
            let today = try #require(await fetcher.latest(.today))
            #expect(today.stations.count == 181 + 3 + 3 + 4)
            #expect(today.stations.first?.id == "onx:K1D3")
            #expect(today.stations.map(\.id).filter { !$0.hasPrefix("onx:") } == [
                "darksky:43.4033,-98.8295", "darksky:48.7164,21.2611", "darksky:45.5017,-73.5673",
                "airvisual:Nigeria/Rivers/Port Harcourt", "airvisual:Slovakia/Kosicky/Kosice", "airvisual:USA/California/Los Angeles",
                "openweather:2643743", "openweather:3060972", "openweather:5128581", "openweather:2147714",
            ])
            let tomorrow = try #require(await fetcher.latest(.tomorrow))
            #expect(tomorrow.stations.count == 181 + 3)
            #expect(tomorrow.stations.last?.temperature == 42.98)  // Montreal's high tomorrow, from daily[1]
            let messages = try output.messages()
            let statuses = messages.filter { $0.field("type").flatMap($0.string) == "status" }
            #expect(statuses.compactMap { $0.field("url").flatMap($0.string) }.first
                    == TestSupport.fixture(.today) + " + " + Self.feed("darksky.json") + " + " + Self.feed("airvisual.json") + " + " + Self.feed("openweather-group.json"))
            // Each source's format, in source order: what the web map's About credits.
            #expect(try statuses.map { try StatusMessage(from: $0).formats } == [["onx", "darksky", "airvisual", "openweather"], ["onx", "darksky"]])
            let warnings = messages.filter { $0.field("type").flatMap($0.string) == "warning" }
            #expect(warnings.count == 5 && warnings.allSatisfy { $0.field("id").flatMap($0.string)?.hasPrefix("onx:") == true })
            // The same files again: the same snapshot ids (ids are stable), nothing published.
            output.clear()
            #expect(await fetcher.round())
            #expect(try output.types().filter { $0 == "station" }.isEmpty)
        }
    }

    @Test func oneFailingSourceFailsTheDayAndKeepsTheLastSnapshot() async throws {
        var options = FetchOptions(today: TestSupport.fixture(.today), tomorrow: TestSupport.fixture(.tomorrow), once: true)
        options.moreToday = ["darksky+" + Self.feed("airvisual.json")]
        try await TestSupport.withFetcher(options) { fetcher, output throws in
            #expect(await fetcher.round() == false)
            #expect(await fetcher.latest(.today) == nil)
            let failed = try output.messages().first { $0.field("state").flatMap($0.string) == "failed" }
            let reason = try #require(failed?.field("reason").flatMap { failed?.string($0) })
            #expect(reason.hasPrefix("source 2 (" + Self.feed("airvisual.json") + "): feed body is not a Dark Sky forecast response"))
        }
    }

    @Test func labelsAreNumberedWhenAFormatRepeats() {
        #expect(FeedMerge.labels([.onx, .darksky, .onx]) == ["onx-1", "darksky", "onx-2"])
        #expect(FeedSpec(parsing: "darksky+https://x.example/f.json") == FeedSpec(format: .darksky, location: "https://x.example/f.json"))
        #expect(FeedSpec(parsing: "https://x.example/f.json").format == nil)
        #expect(FeedSpec(parsing: "git+ssh://x").format == nil)
    }

    /// `--format auto` names the format each body turned out to be, from the first fetch on.
    @Test func statusNamesTheFormatsAutoResolvedTo() async throws {
        var options = FetchOptions(today: Self.feed("metar.json"), tomorrow: Self.feed("openmeteo.json"), once: true)
        options.format = .auto
        options.moreToday = ["auto+" + Self.feed("nws.json")]
        try await TestSupport.withFetcher(options) { fetcher, output throws in
            #expect(await fetcher.round())
            let statuses = try output.statuses()
            #expect(statuses.map(\.day) == [.today, .tomorrow])
            #expect(statuses.map(\.formats) == [["metar", "nws"], ["openmeteo"]])
            #expect(statuses.map(\.state) == [.ok, .ok])
        }
    }
}
