import Testing
@testable import IsobarCore

/// `nearest` and `search` through the filter and the formatter, as `filter | format` runs them.
@Suite struct FindMessageTests {
    static let stations = [
        Station(id: "LZKZ", name: "Košice", coordinate: Coordinate(latitude: 48.66308, longitude: 21.24111),
                temperature: 50, windSpeed: 10, windDirection: 270, precipitation: 20),
        Station(id: "LZIB", name: "Bratislava", coordinate: Coordinate(latitude: 48.17, longitude: 17.2127), temperature: 55),
        Station(id: "NZCH", name: "Chatham Islands", coordinate: Coordinate(latitude: -43.81, longitude: -176.4572)),
        Station(id: "SBSP", name: "São Pedro", coordinate: Coordinate(latitude: -22.6, longitude: -47.9), precipitation: 40),
    ]

    /// Runs `lines` through a filter that holds `stations` as today's snapshot, then the formatter.
    static func run(_ lines: [String], stations: [Station] = stations) -> (filter: [String], format: [String]) {
        let filter = FilterEngine()
        var writer = JSONWriter()
        for line in TestSupport.snapshotLines(day: .today, stations: stations, id: "today-1") {
            line.withUnsafeBytes { filter.handle(line: $0, now: 1, into: &writer) }
        }
        writer = JSONWriter()
        for line in lines { Array(line.utf8).withUnsafeBytes { filter.handle(line: $0, now: 2, into: &writer) } }
        let filtered = writer.bytes.split(separator: 0x0A).map { String(decoding: $0, as: UTF8.self) }
        var formatted = JSONWriter()
        let format = FormatEngine()
        for line in filtered { Array(line.utf8).withUnsafeBytes { format.handle(line: $0, into: &formatted) } }
        return (filtered, formatted.bytes.split(separator: 0x0A).map { String(decoding: $0, as: UTF8.self) })
    }

    @Test func nearestAnswersWithCalloutDistanceAndBearing() {
        let out = Self.run([#"{"type":"nearest","client":"alice","latitude":48.7,"longitude":21.25}"#])
        #expect(out.filter.count == 1)
        #expect(out.filter.first?.hasPrefix(#"{"type":"closest","client":"alice","day":"today","snapshot":"today-1","#) == true)
        #expect(out.format == [
            #"{"type":"place","client":"alice","day":"today","point":{"latitude":48.7,"longitude":21.25},"id":"LZKZ","distanceKm":4.157,"bearing":189,"title":"Košice","subtitle":"LZKZ · Today","coordinate":{"latitude":48.66308,"longitude":21.24111},"details":[{"label":"Temperature","value":"50.0 °F","key":"temperature","number":50,"unit":"°F"},{"label":"Wind","value":"10.0 mph from W (270°) →","key":"windSpeed","number":10,"unit":"mph","calm":false,"direction":270},{"label":"Chance of precipitation","value":"20 %","key":"precipitation","number":20,"unit":"%"},{"label":"Coordinates","value":"48.6631° N, 21.2411° E","key":"coordinates","latitude":48.66308,"longitude":21.24111}],"snapshot":"today-1","source":"feed","fetchedAt":1000,"ageSeconds":0}"#,
        ])
    }

    @Test func nearestInTheClientsPresentationAndAcrossTheAntimeridian() {
        let viewport = #"{"type":"viewport","client":"bob","center":{"latitude":0,"longitude":0},"span":{"latitudeDelta":1,"longitudeDelta":1},"units":"metric","locale":"sk"}"#
        let out = Self.run([viewport, #"{"type":"nearest","client":"bob","latitude":-44,"longitude":179.9}"#])
        let place = out.format.last ?? ""
        #expect(place.contains(#""id":"NZCH""#))
        #expect(place.contains(#""subtitle":"NZCH · Dnes""#))
        #expect(place.contains(#""value":"43,8100° j. š., 176,4572° z. d.""#))
        // Distance and bearing from Python's math with the same formulas: 3.6° of longitude east, across the line.
        #expect(place.contains(#""distanceKm":292.583,"bearing":87.1,"#))
        // Kosice in the client's metric/sk presentation.
        let kosice = Self.run([viewport, #"{"type":"nearest","client":"bob","latitude":48.7,"longitude":21.25}"#]).format.last ?? ""
        #expect(kosice.contains(#"{"label":"Teplota","value":"10,0 °C","key":"temperature","number":10,"unit":"°C"}"#))
        #expect(kosice.contains(#"{"label":"Vietor","value":"16,1 km/h od Z (270°) →","key":"windSpeed","number":16.09344,"unit":"km/h","calm":false,"direction":270}"#))
    }

    @Test func nearestWithoutDataAnswersNoStation() {
        let out = Self.run([#"{"type":"nearest","client":"alice","latitude":0,"longitude":0,"day":"tomorrow"}"#])
        #expect(out.format == [#"{"type":"place","client":"alice","day":"tomorrow","point":{"latitude":0,"longitude":0},"id":null,"snapshot":null,"source":null,"fetchedAt":null,"ageSeconds":null}"#])
    }

    @Test func searchAnswersRankedHitsWithTitles() {
        let out = Self.run([#"{"type":"search","client":"alice","query":"kosice"}"#,
                            #"{"type":"search","client":"alice","query":"sao pedro","field":"precipitation"}"#,
                            #"{"type":"search","client":"alice","query":"lzib","limit":1}"#,
                            #"{"type":"search","client":"alice","query":"a","limit":2}"#])
        #expect(out.format == [
            #"{"type":"results","client":"alice","day":"today","query":"kosice","field":"temperature","units":"imperial","windUnit":"mph","locale":"en","snapshot":"today-1","source":"feed","fetchedAt":1000,"ageSeconds":0,"hits":[{"id":"LZKZ","name":"Košice","coordinate":{"latitude":48.66308,"longitude":21.24111},"title":"50°","match":"prefix"}],"count":1}"#,
            #"{"type":"results","client":"alice","day":"today","query":"sao pedro","field":"precipitation","units":"imperial","windUnit":"mph","locale":"en","snapshot":"today-1","source":"feed","fetchedAt":1000,"ageSeconds":0,"hits":[{"id":"SBSP","name":"São Pedro","coordinate":{"latitude":-22.6,"longitude":-47.9},"title":"40%","match":"prefix"}],"count":1}"#,
            #"{"type":"results","client":"alice","day":"today","query":"lzib","field":"temperature","units":"imperial","windUnit":"mph","locale":"en","snapshot":"today-1","source":"feed","fetchedAt":1000,"ageSeconds":0,"hits":[{"id":"LZIB","name":"Bratislava","coordinate":{"latitude":48.17,"longitude":17.2127},"title":"55°","match":"id"}],"count":1}"#,
            #"{"type":"results","client":"alice","day":"today","query":"a","field":"temperature","units":"imperial","windUnit":"mph","locale":"en","snapshot":"today-1","source":"feed","fetchedAt":1000,"ageSeconds":0,"hits":[{"id":"LZIB","name":"Bratislava","coordinate":{"latitude":48.17,"longitude":17.2127},"title":"55°","match":"substring"},{"id":"NZCH","name":"Chatham Islands","coordinate":{"latitude":-43.81,"longitude":-176.4572},"title":"","match":"substring"}],"count":2}"#,
        ])
    }

    /// Every bad request is one `error` from the filter, and nothing else.
    @Test(arguments: [
        #"{"type":"nearest","latitude":1,"longitude":2}"#,
        #"{"type":"nearest","client":"","latitude":1,"longitude":2}"#,
        #"{"type":"nearest","client":"a","longitude":2}"#,
        #"{"type":"nearest","client":"a","latitude":"1","longitude":2}"#,
        #"{"type":"nearest","client":"a","latitude":90.5,"longitude":2}"#,
        #"{"type":"nearest","client":"a","latitude":1,"longitude":-181}"#,
        #"{"type":"nearest","client":"a","latitude":1,"longitude":2,"day":"yesterday"}"#,
        #"{"type":"nearest","client":7,"latitude":1,"longitude":2}"#,
        #"{"type":"search","client":"a"}"#,
        #"{"type":"search","client":"a","query":""}"#,
        #"{"type":"search","client":"a","query":"   "}"#,
        #"{"type":"search","client":"a","query":7}"#,
        #"{"type":"search","client":"a","query":"\#(String(repeating: "x", count: 101))"}"#,
        #"{"type":"search","client":"a","query":"x","limit":0}"#,
        #"{"type":"search","client":"a","query":"x","limit":101}"#,
        #"{"type":"search","client":"a","query":"x","limit":2.5}"#,
        #"{"type":"search","client":"a","query":"x","units":"kelvin"}"#,
        #"{"type":"search","query":"x"}"#,
    ])
    func badRequestIsOneError(line: String) {
        let out = Self.run([line])
        #expect(out.filter.count == 1)
        #expect(out.filter.first?.hasPrefix(#"{"type":"error","stage":"filter","#) == true)
    }

    @Test func longestQueryIsAccepted() {
        let query = String(repeating: "é", count: 100)
        let out = Self.run([#"{"type":"search","client":"a","query":"\#(query)"}"#])
        #expect(out.format.first?.hasPrefix(#"{"type":"results","#) == true)
    }

    @Test func badFilterOutputIsOneFormatError() {
        var writer = JSONWriter()
        let format = FormatEngine()
        for line in [#"{"type":"closest","client":"a"}"#, #"{"type":"matches","client":"a","query":"x","hits":[1]}"#,
                     #"{"type":"closest","client":"a","point":{"latitude":0,"longitude":0},"station":{"id":"X","latitude":0,"longitude":0},"distanceKm":-1,"bearing":0}"#] {
            Array(line.utf8).withUnsafeBytes { format.handle(line: $0, into: &writer) }
        }
        let lines = writer.bytes.split(separator: 0x0A).map { String(decoding: $0, as: UTF8.self) }
        #expect(lines.count == 3)
        #expect(lines.allSatisfy { $0.hasPrefix(#"{"type":"error","stage":"format","#) })
    }
}
