import Foundation
import IsobarCore
import IsobarNet
import Testing

/// Issue 34's "the bulk METAR file of a few thousand stations loaded and a client's view of it
/// exact against brute force": a `metars.cache.csv.gz` of 4,000 stations in the Aviation Weather
/// Center's 21 documented columns (`MetarFetchTests.bulkTable`: spread over the globe, VRB, calm,
/// missing temperatures, `10+`), gzipped by the system's gzip, read by the real fetcher from the
/// file, its lines fed to a filter, and a client panning over it (the antimeridian, both poles,
/// the whole world) holding exactly the stations a brute-force scan of the parsed table selects.
@Suite struct BulkMetarViewTests {
    /// The contract's visibility rule, written on its own (a modular longitude distance).
    static func visible(_ c: Coordinate, _ lat: Double, _ lon: Double, _ dlat: Double, _ dlon: Double) -> Bool {
        guard c.latitude >= max(-90, lat - dlat / 2), c.latitude <= min(90, lat + dlat / 2) else { return false }
        if dlon >= 360 { return true }
        var delta = (c.longitude - lon).truncatingRemainder(dividingBy: 360)
        if delta > 180 { delta -= 360 } else if delta < -180 { delta += 360 }
        return abs(delta) <= dlon / 2
    }

    @Test func aClientsViewOfTheBulkFileIsExactlyTheBruteForceSelection() async throws {
        let plain = MetarFetchTests.bulkTable(4_000)
        let directory = try TestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = directory + "/metars.cache.csv.gz"
        try Data(try GzipFeedTests.gzip(plain)).write(to: URL(fileURLWithPath: file))
        // The reference: the plain table parsed on its own.
        let parsed = try MetarFeed.parse(plain).stations
        #expect(parsed.count == 4_000)

        let options = FetchOptions(today: file, tomorrow: file, once: true, format: .metar)
        let lines = try await TestSupport.withFetcher(options) { fetcher, output throws in
            #expect(await fetcher.fetch(.today))
            #expect(await fetcher.latest(.today)?.stations == parsed)
            return output.text.split(separator: "\n").map { Array($0.utf8) }
        }
        #expect(lines.count == 4_002) // 4,000 stations, the end marker, the status

        let filter = FilterEngine()
        let now = UnixClock.now()
        var writer = JSONWriter()
        for line in lines { line.withUnsafeBytes { filter.handle(line: $0, now: now, into: &writer) } }
        #expect(filter.snapshot(for: .today)?.stations.count == 4_000)

        let byID = Dictionary(uniqueKeysWithValues: parsed.map { ($0.id, $0) })
        var held: [String: Coordinate] = [:]
        var version = 0
        let views: [(Double, Double, Double, Double)] = [
            (40, -100, 30, 60), (45, -95, 30, 60), (0, 179, 40, 20), (0, -179.5, 40, 20), (88, 0, 10, 360),
            (-85, 120, 20, 90), (0, 30, 180, 360), (-30, 150, 5, 5), (0, 0, 0.5, 0.5), (60, 20, 25, 40),
        ]
        for (step, (lat, lon, dlat, dlon)) in views.enumerated() {
            writer.removeAll()
            let viewport = #"{"type":"viewport","client":"bulk","center":{"latitude":\#(lat),"longitude":\#(lon)},"span":{"latitudeDelta":\#(dlat),"longitudeDelta":\#(dlon)},"day":"today","limit":1000000}"#
            Array(viewport.utf8).withUnsafeBytes { filter.handle(line: $0, now: now, into: &writer) }
            for text in String(decoding: writer.bytes, as: UTF8.self).split(separator: "\n") {
                let message = try JSONObject(parsing: String(text))
                guard message.field("type").flatMap(message.string) == "visible" else { continue }
                let messageVersion = Int(try message.requireNumber("version"))
                #expect(messageVersion == version + 1)
                version = messageVersion
                if message.field("full").flatMap(message.bool) == true { held.removeAll() }
                if let remove = message.field("remove") {
                    // Ids here are plain letters and digits: the element's text between its quotes.
                    for id in message.arrayElements(remove) { held[String(decoding: message.storage[id.range].dropFirst().dropLast(), as: UTF8.self)] = nil }
                }
                let upsert = try #require(message.field("upsert"))
                for element in message.arrayElements(upsert) {
                    let item = message.object(at: element.range)
                    held[try item.requireString("id")] = try Coordinate(from: item)
                }
            }
            let expected = parsed.filter { Self.visible($0.coordinate, lat, lon, dlat, dlon) }
            #expect(Set(held.keys) == Set(expected.map(\.id)), "view \(step): \(lat),\(lon) span \(dlat)x\(dlon)")
            #expect(held.allSatisfy { byID[$0.key]?.coordinate == $0.value }, "view \(step): a coordinate differs")
        }
        // The views were not trivial: the world view holds every station, the small one few.
        #expect(parsed.filter { Self.visible($0.coordinate, 0, 30, 180, 360) }.count == 4_000)
    }
}
