import Foundation
import Testing
@testable import IsobarCore

/// `Gazetteer.load(file:)`, what the places stage runs: the same gazetteer as one built from the
/// bytes in memory, nil for a file that cannot be read, the dump's errors as they are.
@Suite struct GazetteerFileTests {
    static func write(_ text: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("gazetteer-\(UUID().uuidString).txt").path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func aFileLoadsAsTheSameBytesInMemory() throws {
        let text = "# comment\n" + WeatherMessageTests.dump + "not\ta\trow\n"
        let path = try Self.write(text)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let loaded = try #require(try Gazetteer.load(file: path))
        let inMemory = try DefaultGazetteer.make(text, file: path)
        #expect(loaded.count == 3 && loaded.count == inMemory.count)
        #expect(loaded.report == inMemory.report)
        for id in [2643743, 3060972, 724443] { #expect(loaded.place(id: id) == inMemory.place(id: id)) }
        #expect(loaded.geocode("kos", country: nil, state: nil, limit: 5)?.map(\.place.id) == [724443])
        #expect(loaded.reverse(Coordinate(latitude: 48.2, longitude: 17.2))?.place.name == "Bratislava")
    }

    @Test func aMissingFileIsNilAndAWrongOneItsError() throws {
        #expect(try Gazetteer.load(file: "/nonexistent/cities500.txt") == nil)
        let path = try Self.write("geonameid,name\n1,x\n")
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(throws: PlacesError.self) { try Gazetteer.load(file: path) }
    }
}
