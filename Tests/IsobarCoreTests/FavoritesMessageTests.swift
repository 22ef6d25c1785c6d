import Testing
@testable import IsobarCore

/// `favorite` through the filter and the formatter, as `filter | format` runs them: lists sent on
/// joining, on every change and when a new snapshot changes a favorite's values (either day).
@Suite struct FavoritesMessageTests {
    static let stations = FindMessageTests.stations
    static let viewport = #"{"type":"viewport","client":"alice","center":{"latitude":48,"longitude":20},"span":{"latitudeDelta":2,"longitudeDelta":2}}"#

    /// A backing whose every call throws, as a damaged or read-only file does.
    final class FailingFavorites: FavoritesBacking {
        struct Failure: Error, CustomStringConvertible { var description: String }
        let location = "/data/favorites.sqlite"
        var failLoad: Bool
        /// What reads return (a read-only file still holds its lists).
        var stored: [String: [String]]
        var calls = 0
        init(failLoad: Bool, stored: [String: [String]] = [:]) { self.failLoad = failLoad; self.stored = stored }
        func favorites(of client: String) throws -> [FavoriteEntry] {
            calls += 1
            if failLoad { throw Failure(description: "file is not a database") }
            return (stored[client] ?? []).map(FavoriteEntry.station)
        }
        func add(_ entry: FavoriteEntry, for client: String) throws { calls += 1; throw Failure(description: "attempt to write a readonly database") }
        func remove(_ entry: FavoriteEntry, for client: String) throws { calls += 1; throw Failure(description: "attempt to write a readonly database") }
        func replace(with entries: [FavoriteEntry], for client: String) throws { calls += 1; throw Failure(description: "attempt to write a readonly database") }
    }

    /// A filter holding `stations` as today's snapshot and `favorites` as its backing, and the formatter.
    final class Pipe {
        let filter: FilterEngine
        let format = FormatEngine()
        var now = 1.0

        init(favorites: any FavoritesBacking, stations: [Station] = FavoritesMessageTests.stations) {
            filter = FilterEngine(favorites: favorites)
            _ = snapshot(.today, stations, id: "today-1")
        }

        /// Feeds lines to the filter; returns the filter's lines of `types` and the formatter's output for them.
        func run(_ lines: [String], types: Set<String> = ["pinned", "error"]) -> (filter: [String], format: [String]) {
            var writer = JSONWriter()
            now += 1
            for line in lines { Array(line.utf8).withUnsafeBytes { filter.handle(line: $0, now: now, into: &writer) } }
            let filtered = writer.bytes.split(separator: 0x0A).map { String(decoding: $0, as: UTF8.self) }
                .filter { line in types.contains { line.hasPrefix(#"{"type":""# + $0 + "\"") } }
            var formatted = JSONWriter()
            for line in filtered { Array(line.utf8).withUnsafeBytes { format.handle(line: $0, into: &formatted) } }
            return (filtered, formatted.bytes.split(separator: 0x0A).map { String(decoding: $0, as: UTF8.self) })
        }

        func snapshot(_ day: Day, _ stations: [Station], id: String, fetchedAt: Double = 1_000) -> (filter: [String], format: [String]) {
            run(TestSupport.snapshotLines(day: day, stations: stations, id: id, fetchedAt: fetchedAt).map { String(decoding: $0, as: UTF8.self) })
        }
    }

    static func favorite(_ id: String, _ on: Bool, client: String = "alice") -> String {
        #"{"type":"favorite","client":"\#(client)","id":"\#(id)","on":\#(on)}"#
    }

    static let kosice = #"{"id":"LZKZ","known":true,"name":"Košice","coordinate":{"latitude":48.66308,"longitude":21.24111},"today":{"title":"50°","details":[{"label":"Temperature","value":"50.0 °F","key":"temperature","number":50,"unit":"°F"},{"label":"Wind","value":"10.0 mph from W (270°) →","key":"windSpeed","number":10,"unit":"mph","calm":false,"direction":270},{"label":"Chance of precipitation","value":"20 %","key":"precipitation","number":20,"unit":"%"},{"label":"Coordinates","value":"48.6631° N, 21.2411° E","key":"coordinates","latitude":48.66308,"longitude":21.24111}],"temperature":50,"humidity":null},"tomorrow":null}"#
    static let bratislava = #"{"id":"LZIB","known":true,"name":"Bratislava","coordinate":{"latitude":48.17,"longitude":17.2127},"today":{"title":"55°","details":[{"label":"Temperature","value":"55.0 °F","key":"temperature","number":55,"unit":"°F"},{"label":"Coordinates","value":"48.1700° N, 17.2127° E","key":"coordinates","latitude":48.17,"longitude":17.2127}],"temperature":55,"humidity":null},"tomorrow":null}"#
    static let gone = #"{"id":"GONE","known":false,"name":null,"coordinate":null,"today":null,"tomorrow":null}"#
    static func starred(_ reason: String, _ items: [String], units: String = #""field":"temperature","units":"imperial","windUnit":"mph","locale":"en""#) -> String {
        #"{"type":"starred","client":"alice","reason":"\#(reason)",\#(units),"radiusKm":50,"items":[\#(items.joined(separator: ","))],"count":\#(items.count)}"#
    }

    @Test func joiningSendsTheStoredListInOrderWithUnknownIdsKept() {
        let pipe = Pipe(favorites: InMemoryFavorites(["alice": ["LZKZ", "GONE", "LZIB"]]))
        let out = pipe.run([Self.viewport])
        #expect(out.filter == [#"{"type":"pinned","client":"alice","reason":"joined","radiusKm":50,"items":[{"id":"LZKZ","today":{"id":"LZKZ","name":"Košice","latitude":48.66308,"longitude":21.24111,"temperature":50,"windSpeed":10,"windDirection":270,"precipitation":20},"tomorrow":null},{"id":"GONE","today":null,"tomorrow":null},{"id":"LZIB","today":{"id":"LZIB","name":"Bratislava","latitude":48.17,"longitude":17.2127,"temperature":55,"windSpeed":null,"windDirection":null,"precipitation":null},"tomorrow":null}]}"#])
        #expect(out.format == [Self.starred("joined", [Self.kosice, Self.gone, Self.bratislava])])
        // A heartbeat is not a join.
        #expect(pipe.run([Self.viewport]).format.isEmpty)
    }

    @Test func aClientWithoutFavoritesGetsNoListOnJoining() {
        let pipe = Pipe(favorites: InMemoryFavorites())
        #expect(pipe.run([Self.viewport]).filter.isEmpty)
    }

    @Test func addRemoveAndRepeatsAnswerTheListAndStoreOnlyChanges() throws {
        let backing = InMemoryFavorites()
        let pipe = Pipe(favorites: backing)
        let out = pipe.run([Self.viewport, Self.favorite("LZIB", true), Self.favorite("LZKZ", true), Self.favorite("LZIB", true),
                            Self.favorite("GONE", true), Self.favorite("LZIB", false), Self.favorite("LZIB", false)])
        #expect(out.format == [
            Self.starred("added", [Self.bratislava]),
            Self.starred("added", [Self.bratislava, Self.kosice]),
            Self.starred("unchanged", [Self.bratislava, Self.kosice]),
            Self.starred("added", [Self.bratislava, Self.kosice, Self.gone]),
            Self.starred("removed", [Self.kosice, Self.gone]),
            Self.starred("unchanged", [Self.kosice, Self.gone]),
        ])
        #expect(try backing.favorites(of: "alice") == ["LZKZ", "GONE"])
    }

    @Test func aNewSnapshotSendsTheListOnlyWhenAFavoritesValuesChangedEitherDay() {
        let pipe = Pipe(favorites: InMemoryFavorites(["alice": ["LZKZ"]]))
        #expect(pipe.run([Self.viewport]).format.count == 1)
        // Another station changed, the favorite did not: nothing.
        var stations = Self.stations
        stations[1].temperature = 60
        #expect(pipe.snapshot(.today, stations, id: "today-2", fetchedAt: 2_000).filter.isEmpty)
        // The favorite's temperature changed: the list again.
        stations[0].temperature = 41
        let changed = pipe.snapshot(.today, stations, id: "today-3", fetchedAt: 3_000)
        #expect(changed.format == [Self.starred("updated", [Self.kosice.replacingOccurrences(of: "50°", with: "41°").replacingOccurrences(of: "50.0 °F", with: "41.0 °F").replacingOccurrences(of: #""number":50,"#, with: #""number":41,"#).replacingOccurrences(of: #""temperature":50,"humidity""#, with: #""temperature":41,"humidity""#)])])
        // Tomorrow's first snapshot: the favorite now has tomorrow's values too.
        let tomorrow = pipe.snapshot(.tomorrow, [Station(id: "LZKZ", name: "Košice", coordinate: Coordinate(latitude: 48.66308, longitude: 21.24111), temperature: 33)], id: "tomorrow-1")
        #expect(tomorrow.format.count == 1)
        #expect(tomorrow.format.first?.hasSuffix(#""tomorrow":{"title":"33°","details":[{"label":"Temperature","value":"33.0 °F","key":"temperature","number":33,"unit":"°F"},{"label":"Coordinates","value":"48.6631° N, 21.2411° E","key":"coordinates","latitude":48.66308,"longitude":21.24111}],"temperature":33,"humidity":null}}],"count":1}"#) == true)
        // The same values again under a new id: nothing.
        #expect(pipe.snapshot(.tomorrow, [Station(id: "LZKZ", name: "Košice", coordinate: Coordinate(latitude: 48.66308, longitude: 21.24111), temperature: 33)], id: "tomorrow-2", fetchedAt: 5_000).filter.isEmpty)
    }

    @Test func aChangeOfUnitsOrAResyncSendsTheListAgain() {
        let pipe = Pipe(favorites: InMemoryFavorites(["alice": ["LZIB"]]))
        _ = pipe.run([Self.viewport])
        let metric = pipe.run([Self.viewport.replacingOccurrences(of: "}}", with: #"},"units":"metric","locale":"sk"}"#)])
        #expect(metric.format == [Self.starred("updated", [#"{"id":"LZIB","known":true,"name":"Bratislava","coordinate":{"latitude":48.17,"longitude":17.2127},"today":{"title":"13°","details":[{"label":"Teplota","value":"12,8 °C","key":"temperature","number":12.777778,"unit":"°C"},{"label":"Súradnice","value":"48,1700° s. š., 17,2127° v. d.","key":"coordinates","latitude":48.17,"longitude":17.2127}],"temperature":12.777777777777779,"humidity":null},"tomorrow":null}"#],
                                                 units: #""field":"temperature","units":"metric","windUnit":"kmh","locale":"sk""#)])
        #expect(pipe.run([#"{"type":"resync","client":"alice"}"#]).filter.first?.hasPrefix(#"{"type":"pinned","client":"alice","reason":"resync","#) == true)
    }

    @Test func aStoreThatCannotBeReadIsOneErrorNamingItAndFavoritesLiveInMemory() {
        let backing = FailingFavorites(failLoad: true)
        let pipe = Pipe(favorites: backing)
        let out = pipe.run([Self.viewport, Self.favorite("LZIB", true), #"{"type":"viewport","client":"bob","center":{"latitude":0,"longitude":0},"span":{"latitudeDelta":1,"longitudeDelta":1}}"#,
                            Self.favorite("LZKZ", true)])
        #expect(out.filter.count == 3)
        #expect(out.filter.first == #"{"type":"error","stage":"filter","message":"favorites store /data/favorites.sqlite failed: file is not a database. Changes to favorites are kept in memory until the filter stops; fix or move the file and restart the filter to store them again","excerpt":"","code":"invalid"}"#)
        #expect(Array(out.format.dropFirst()) == [Self.starred("added", [Self.bratislava]), Self.starred("added", [Self.bratislava, Self.kosice])])
        #expect(backing.calls == 1)
    }

    /// A read-only store: one error at the first change, the change holds in memory, and a client
    /// joining afterwards still gets the list the file holds (it can be read).
    @Test func aStoreThatCannotBeWrittenIsOneErrorAndTheChangeStillHolds() {
        let backing = FailingFavorites(failLoad: false, stored: ["bob": ["LZKZ"]])
        let pipe = Pipe(favorites: backing)
        let out = pipe.run([Self.viewport, Self.favorite("LZIB", true), Self.favorite("LZKZ", true), Self.favorite("LZIB", false)])
        #expect(out.filter.filter { $0.hasPrefix(#"{"type":"error""#) }.count == 1)
        #expect(out.filter.first?.contains("favorites store /data/favorites.sqlite failed: attempt to write a readonly database. Changes to favorites are kept in memory") == true)
        #expect(Array(out.format.dropFirst()) == [Self.starred("added", [Self.bratislava]), Self.starred("added", [Self.bratislava, Self.kosice]),
                                                  Self.starred("removed", [Self.kosice])])
        // One load, one failed add; after that no change is tried again.
        #expect(backing.calls == 2)
        let bob = pipe.run([#"{"type":"viewport","client":"bob","center":{"latitude":0,"longitude":0},"span":{"latitudeDelta":1,"longitudeDelta":1}}"#], types: ["pinned", "error"])
        #expect(bob.filter == [#"{"type":"pinned","client":"bob","reason":"joined","radiusKm":50,"items":[{"id":"LZKZ","today":{"id":"LZKZ","name":"Košice","latitude":48.66308,"longitude":21.24111,"temperature":50,"windSpeed":10,"windDirection":270,"precipitation":20},"tomorrow":null}]}"#])
        #expect(backing.calls == 3)
    }

    /// Every bad request is one `error` from the filter, and nothing else.
    @Test(arguments: [
        #"{"type":"favorite","id":"LZIB","on":true}"#,
        #"{"type":"favorite","client":"","id":"LZIB","on":true}"#,
        #"{"type":"favorite","client":"alice","on":true}"#,
        #"{"type":"favorite","client":"alice","id":"","on":true}"#,
        #"{"type":"favorite","client":"alice","id":7,"on":true}"#,
        #"{"type":"favorite","client":"alice","id":"LZIB"}"#,
        #"{"type":"favorite","client":"alice","id":"LZIB","on":"yes"}"#,
        #"{"type":"favorite","client":"alice","id":"LZIB","on":1}"#,
        #"{"type":"favorite","client":"alice","id":"\#(String(repeating: "x", count: 257))","on":true}"#,
        // Places and pins (issue 28): exactly one kind, a complete place or named pin to add.
        #"{"type":"favorite","client":"alice","id":"LZIB","pin":{"name":"x","latitude":1,"longitude":2},"on":true}"#,
        #"{"type":"favorite","client":"alice","place":1835848,"on":true}"#,
        #"{"type":"favorite","client":"alice","place":{"id":1835848},"on":true}"#,
        #"{"type":"favorite","client":"alice","pin":{"latitude":1,"longitude":2},"on":true}"#,
        #"{"type":"favorite","client":"alice","pin":{"name":"x","latitude":91,"longitude":2},"on":true}"#,
        #"{"type":"favorite","client":"alice","items":{"id":"LZIB"}}"#,
        #"{"type":"favorite","client":"alice","items":["LZIB"]}"#,
        #"{"type":"favorite","client":"alice","items":[{"id":"LZIB"}],"id":"LZKZ"}"#,
    ])
    func badRequestIsOneError(line: String) {
        let out = Pipe(favorites: InMemoryFavorites()).run([line], types: ["pinned", "error", "visible"])
        #expect(out.filter.count == 1)
        #expect(out.filter.first?.hasPrefix(#"{"type":"error","stage":"filter","#) == true)
    }

    @Test func moreThanTheLimitIsOneErrorAndTheListStays() {
        var options = FilterOptions()
        options.maxFavorites = 2
        let filter = FilterEngine(options: options, favorites: InMemoryFavorites(["alice": ["A", "B"]]))
        var writer = JSONWriter()
        for line in [Self.favorite("C", true), Self.favorite("A", false)] { Array(line.utf8).withUnsafeBytes { filter.handle(line: $0, now: 1, into: &writer) } }
        let lines = writer.bytes.split(separator: 0x0A).map { String(decoding: $0, as: UTF8.self) }
        #expect(lines.count == 2)
        #expect(lines.first?.contains("already has 2 favorites") == true)
        #expect(lines.last == #"{"type":"pinned","client":"alice","reason":"removed","radiusKm":50,"items":[{"id":"B","today":null,"tomorrow":null}]}"#)
        // A whole list over the limit: one error, the list stays; within it: replaced, duplicates dropped.
        writer = JSONWriter()
        for line in [#"{"type":"favorite","client":"alice","items":[{"id":"X"},{"id":"Y"},{"id":"Z"}]}"#,
                     #"{"type":"favorite","client":"alice","items":[{"id":"Y"},{"id":"Y"},{"pin":{"name":"P","latitude":1,"longitude":2}}]}"#] {
            Array(line.utf8).withUnsafeBytes { filter.handle(line: $0, now: 2, into: &writer) }
        }
        let whole = writer.bytes.split(separator: 0x0A).map { String(decoding: $0, as: UTF8.self) }
        #expect(whole.count == 2)
        #expect(whole.first?.contains("a list of 3 favorites is over the limit of 2") == true)
        #expect(whole.last == #"{"type":"pinned","client":"alice","reason":"replaced","radiusKm":50,"items":[{"id":"Y","today":null,"tomorrow":null},{"pin":{"name":"P","latitude":1,"longitude":2},"today":null,"tomorrow":null}]}"#)
    }

    @Test func badFilterOutputIsOneFormatError() {
        var writer = JSONWriter()
        let format = FormatEngine()
        for line in [#"{"type":"pinned","client":"a"}"#, #"{"type":"pinned","client":"a","items":[1]}"#,
                     #"{"type":"pinned","client":"a","items":[{"id":"X","today":{"id":"Y","latitude":0,"longitude":0}}]}"#,
                     #"{"type":"pinned","client":"a","items":[{"id":"X","today":7}]}"#] {
            Array(line.utf8).withUnsafeBytes { format.handle(line: $0, into: &writer) }
        }
        let lines = writer.bytes.split(separator: 0x0A).map { String(decoding: $0, as: UTF8.self) }
        #expect(lines.count == 4)
        #expect(lines.allSatisfy { $0.hasPrefix(#"{"type":"error","stage":"format","#) })
    }
}
