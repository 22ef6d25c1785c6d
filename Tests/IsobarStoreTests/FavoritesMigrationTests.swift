import Foundation
import IsobarCore
import IsobarStore
import Testing

/// Issue 28 item 6: the favorites file of an earlier version (v2: station ids only) keeps working
/// after the migration to v3 (stations, places and pins in one list), and places and pins survive
/// reopening beside stations, in the client's order, with their names and coordinates.
@Suite struct FavoritesMigrationTests {
    static let seoul = Place(id: 1835848, name: "Seoul", admin1: nil, countryCode: "KR", country: "South Korea",
                             coordinate: Coordinate(latitude: 37.566, longitude: 126.9784), population: 10349312, timeZone: "Asia/Seoul")
    static let pin = FavoriteEntry.Pin(name: "Stara Zagora", coordinate: Coordinate(latitude: 42.432356, longitude: 25.637389))

    /// A file exactly as the v2 store wrote it (the two tables and GRDB's record of both
    /// migrations), written by the sqlite3 tool.
    static func writeVersion2(_ path: String) throws {
        let sqlite = Process()
        sqlite.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        sqlite.arguments = [path, """
                CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
                INSERT INTO grdb_migrations VALUES ('v1: favorites'), ('v2: names by last use');
                CREATE TABLE favorites (client TEXT NOT NULL, id TEXT NOT NULL, position INTEGER NOT NULL, PRIMARY KEY (client, id)) WITHOUT ROWID;
                CREATE INDEX favorites_in_order ON favorites (client, position);
                CREATE TABLE names (client TEXT NOT NULL PRIMARY KEY, used INTEGER NOT NULL) WITHOUT ROWID;
                CREATE INDEX names_by_use ON names (used);
                INSERT INTO favorites VALUES ('alice', 'LZIB', 2), ('alice', 'LZKZ', 1), ('bob', 'K1D3', 1);
                INSERT INTO names VALUES ('alice', 1), ('bob', 2);
                """]
        try sqlite.run()
        sqlite.waitUntilExit()
        try #require(sqlite.terminationStatus == 0)
    }

    @Test func aVersion2FileKeepsItsStationsAndTakesPlacesAndPins() throws {
        try StoreTestSupport.withTemporaryDirectory { directory in
            let path = directory + "/favorites.sqlite"
            try Self.writeVersion2(path)
            let store = FavoritesStore(path: path)
            #expect(store.openError == nil)
            #expect(try store.favorites(of: "alice") == ["LZKZ", "LZIB"])
            try store.add(.place(Self.seoul), for: "alice")
            try store.add(.pin(Self.pin), for: "alice")
            // A station whose id looks like the place's key is another favorite.
            try store.add(.station("1835848"), for: "alice")
            try store.remove(.station("LZKZ"), for: "alice")
            try store.close()
            let again = FavoritesStore(path: path)
            #expect(try again.favorites(of: "alice") == ["LZIB", .place(Self.seoul), .pin(Self.pin), "1835848"])
            #expect(try again.favorites(of: "bob") == ["K1D3"])
            // Removal by identity: the place by its id, the pin by its coordinate, names ignored.
            try again.remove(.pin(FavoriteEntry.Pin(name: "", coordinate: Self.pin.coordinate)), for: "alice")
            var renamed = Self.seoul
            renamed.name = "Sŏul"
            try again.remove(.place(renamed), for: "alice")
            #expect(try again.favorites(of: "alice") == ["LZIB", "1835848"])
            // The whole list at once, in its order.
            try again.replace(with: [.pin(Self.pin), "K1D3", .place(Self.seoul)], for: "bob")
            try again.close()
            let third = FavoritesStore(path: path)
            #expect(try third.favorites(of: "bob") == [.pin(Self.pin), "K1D3", .place(Self.seoul)])
            #expect(try third.size() == (names: 2, favorites: 5))
            try third.close()
        }
    }
}
