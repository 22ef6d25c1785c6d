import Testing
@testable import IsobarCore

/// The `conditions` field (PROTOCOL.md "Formatting rules, exactly"): the filter passes each
/// station's icon on and gives a cluster its members' most common one, the formatter writes the
/// icon's word as the title with the `icon` beside it, and a callout carries the station's icon.
@Suite struct ConditionsFieldTests {
    static func station(_ id: String, _ n: Int, _ icon: WeatherIcon?) -> Station {
        Station(id: id, name: id, coordinate: Coordinate(latitude: Double("10.0000\(n + 1)") ?? 0, longitude: Double("20.0000\(n + 1)") ?? 0),
                temperature: 50, details: icon.map { StationDetails(icon: $0) })
    }

    /// One cluster of all `icons`' stations (limit 1), over the whole world (grid cells taken whole)
    /// and over a box just around them (stations one by one): its icon either way.
    static func clusterIcons(_ icons: [WeatherIcon?]) throws -> [WeatherIcon?] {
        let stations = icons.enumerated().map { station("S\($0.offset)", $0.offset, $0.element) }
        let snapshot = ClustererTests.snapshot(stations)
        let world = try Region(center: Coordinate(latitude: 0, longitude: 0), latitudeDelta: 180, longitudeDelta: 360)
        let box = try Region(center: Coordinate(latitude: 10.0001, longitude: 20.0001), latitudeDelta: 0.01, longitudeDelta: 0.01)
        return try [world, box].map { region in
            let items = Clusterer.items(in: region, of: snapshot, limit: 1)
            try #require(items.clusters.count == 1 && items.stations.isEmpty)
            return items.clusters[0].icon
        }
    }

    @Test func clusterIconIsTheMostCommonTiesToTheEarlierInTheVocabulary() throws {
        #expect(try Self.clusterIcons([.snow, .rain, .snow, nil, .snow, .rain]) == [.snow, .snow])
        // 2 rain, 2 snow: rain comes first in the vocabulary (clear-day … hail), whatever the order.
        #expect(try Self.clusterIcons([.snow, .snow, .rain, nil, nil, .rain]) == [.rain, .rain])
        #expect(try Self.clusterIcons([nil, nil, nil]) == [nil, nil])
    }

    @Test func conditionsAnnotationsExact() throws {
        let rain = Self.station("KRAI", 0, .rain)
        let none = Self.station("KNON", 1, nil)
        let night = Self.station("KNIT", 2, .partlyCloudyNight)
        let cluster = Cluster(key: Cluster.key(level: 3, row: 4, column: 5), count: 7, coordinate: Coordinate(latitude: 1, longitude: 2),
                              temperature: 50, icon: .snow)
        for (locale, words) in [(Locale.en, ["Rain", "", "Partly cloudy", "Snow", "7 stations"]),
                                (.sk, ["Dážď", "", "Polojasno", "Sneh", "7 staníc"])] {
            var writer = JSONWriter()
            Visible(client: "alice", version: 2, full: true, day: .today, presentation: Presentation(field: .conditions, locale: locale),
                    upsert: [.station(rain, stale: false), .station(none, stale: false), .station(night, stale: false), .cluster(cluster)]).write(to: &writer)
            let visible = String(decoding: writer.bytes, as: UTF8.self)
            #expect(visible.contains(#""precipitation":null,"icon":"rain"}"#))
            #expect(visible.contains(#""icon":"snow"}"#))
            for onePass in [true, false] {
                var engine = FormatEngine()
                engine.onePass = onePass
                var out = JSONWriter()
                TestSupport.withLine(String(visible.dropLast())) { engine.handle(line: $0, into: &out) }
                let expected = #"{"type":"annotations","client":"alice","version":2,"full":true,"day":"today","field":"conditions","units":"imperial","windUnit":"mph","locale":"\#(locale.rawValue)","snapshot":null,"source":null,"fetchedAt":null,"ageSeconds":null,"upsert":["#
                    + #"{"id":"KRAI","coordinate":{"latitude":10.00001,"longitude":20.00001},"title":"\#(words[0])","subtitle":"KRAI","icon":"rain"},"#
                    + #"{"id":"KNON","coordinate":{"latitude":10.00002,"longitude":20.00002},"title":"","subtitle":"KNON"},"#
                    + #"{"id":"KNIT","coordinate":{"latitude":10.00003,"longitude":20.00003},"title":"\#(words[2])","subtitle":"KNIT","icon":"partly-cloudy-night"},"#
                    + #"{"id":"cluster:3:4:5","coordinate":{"latitude":1,"longitude":2},"title":"\#(words[3])","subtitle":"\#(words[4])","cluster":true,"count":7,"icon":"snow"}"#
                    + #"],"remove":[]}"# + "\n"
                #expect(String(decoding: out.bytes, as: UTF8.self) == expected, "onePass \(onePass)")
                // The typed writer says the same.
                let annotations = try Annotations(from: try JSONObject(parsing: expected))
                var again = JSONWriter()
                annotations.write(to: &again)
                #expect(String(decoding: again.bytes, as: UTF8.self) == expected)
            }
        }
    }

    @Test func calloutCarriesTheStationsIcon() throws {
        for (station, icon) in [(Self.station("KRAI", 0, .rain), #","icon":"rain""#), (Self.station("KNON", 1, nil), "")] {
            var writer = JSONWriter()
            Selection(client: "alice", id: station.id, day: .today, reason: "selected", station: station).write(to: &writer)
            var out = JSONWriter()
            TestSupport.withLine(String(decoding: writer.bytes.dropLast(), as: UTF8.self)) { FormatEngine().handle(line: $0, into: &out) }
            let text = String(decoding: out.bytes, as: UTF8.self)
            let coordinates = #"{"label":"Coordinates","value":"10.0000° N, 20.0000° E","key":"coordinates","latitude":\#(station.coordinate.latitude),"longitude":\#(station.coordinate.longitude)}]"#
            #expect(text.contains(coordinates + icon + #","snapshot":null"#), "\(text)")
            let callout = try Callout(from: try JSONObject(parsing: String(text.dropLast())))
            #expect(callout.icon == station.details?.icon)
        }
    }
}
