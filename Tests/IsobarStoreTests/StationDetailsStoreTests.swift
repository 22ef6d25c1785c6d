import Foundation
import IsobarCore
import IsobarStore
import Testing

/// The fuller station model in the store: details round-trip through the v2 `details` column, and
/// a file written before it (schema v1) opens, migrates and replays its snapshots unchanged.
@Suite struct StationDetailsStoreTests {
    typealias Support = StoreTestSupport

    static func darkSky() throws -> [Station] {
        let url = Support.packageRoot.appendingPathComponent("Fixtures/feeds/darksky.json")
        return try DarkSkyFeed.parse(Array(try Data(contentsOf: url))).stations
    }

    @Test func detailsAndForecastsRoundTrip() throws {
        try Support.withTemporaryDirectory { dir in
            let stations = try Self.darkSky()
            try #require(stations.count == 3 && stations.allSatisfy { $0.details?.hourly.count == 48 })
            let id = OnXFeed.snapshotID(day: .today, stations: stations)
            let store = try SnapshotStore(path: dir + "/store.sqlite")
            try store.save(day: .today, id: id, stations: stations, fetchedAt: 1_795_428_000)
            try store.close()
            let reopened = try SnapshotStore(path: dir + "/store.sqlite")
            let back = try #require(try reopened.latest(day: .today))
            #expect(back.stations == stations)
            #expect(OnXFeed.snapshotID(day: .today, stations: back.stations) == id)
            #expect(back.stations[1].details?.daily[7].temperatureHigh == stations[1].details?.daily[7].temperatureHigh)
        }
    }

    @Test func aVersionOneFileIsMigratedAndKeepsItsSnapshots() throws {
        try Support.withTemporaryDirectory { dir in
            let path = dir + "/v1.sqlite"
            // The v1 schema exactly as shipped, with one onX station, written by the sqlite3 tool.
            let sql = """
                    CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
                    INSERT INTO grdb_migrations VALUES ('v1: snapshots and stations');
                    CREATE TABLE snapshots (day TEXT NOT NULL, id TEXT NOT NULL, count INTEGER NOT NULL, fetchedAt REAL NOT NULL,
                                            storedAt REAL NOT NULL, PRIMARY KEY (day, id));
                    CREATE TABLE stations (snapshot TEXT NOT NULL, day TEXT NOT NULL, seq INTEGER NOT NULL, id TEXT NOT NULL,
                                           name TEXT NOT NULL, latitude REAL NOT NULL, longitude REAL NOT NULL, temperature REAL,
                                           windSpeed REAL, windDirection REAL, precipitation REAL, PRIMARY KEY (day, snapshot, seq)) WITHOUT ROWID;
                    INSERT INTO snapshots VALUES ('today', 'today-x', 1, 100, 101);
                    INSERT INTO stations VALUES ('today-x', 'today', 0, 'K1D3', 'PLATTE', 43.40332, -98.82952, 46.4, 6.9, 270, 0);
                    """
            let sqlite = Process()
            sqlite.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
            sqlite.arguments = [path, sql]
            try sqlite.run()
            sqlite.waitUntilExit()
            try #require(sqlite.terminationStatus == 0)
            let store = try SnapshotStore(path: path)
            let latest = try #require(try store.latest(day: .today))
            #expect(latest.stations == [Station(id: "K1D3", name: "PLATTE", coordinate: Coordinate(latitude: 43.40332, longitude: -98.82952),
                                                temperature: 46.4, windSpeed: 6.9, windDirection: 270, precipitation: 0)])
            #expect(latest.stations[0].details == nil)
        }
    }
}
