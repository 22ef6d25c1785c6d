import Testing
@testable import IsobarCore

/// The dump reader on bad input: wrong format refused whole, bad rows skipped and counted with
/// their line numbers, a truncated last line, unknown ids.
@Suite struct GeoNamesDumpTests {
    static func row(_ id: Int, _ name: String, alternates: String = "", _ latitude: String, _ longitude: String,
                    country: String = "SK", admin1: String = "03", population: String = "1000", zone: String = "Europe/Bratislava") -> String {
        [String(id), name, name, alternates, latitude, longitude, "P", "PPL", country, "", admin1, "", "", "",
         population, "", "", zone, "2024-01-01"].joined(separator: "\t")
    }

    @Test func goodRowsLoadAndBadRowsAreSkippedWithLineNumbers() throws {
        let text = [
            "# a comment",
            Self.row(724443, "Košice", alternates: "Kassa,Kaschau", "48.71395", "21.25808", population: "240433"),
            Self.row(1, "Nowhere", "91", "0"),                             // line 3: latitude out of range
            "",
            Self.row(2, "Broken", "48", "x21"),                            // line 5: longitude not a number
            "3\tShort\tShort",                                             // line 6: 3 columns
            Self.row(0, "Zero", "1", "1"),                                  // line 7: id 0
            Self.row(4, "", "1", "1"),                                      // line 8: empty name
            Self.row(5, "People", "1", "1", population: "-5"),              // line 9: negative population
            Self.row(6, "Land", "1", "1", country: "sk"),                   // line 10: lowercase country
            Self.row(3060972, "Bratislava", "48.14816", "17.10674", admin1: "02", population: "423737"),
            "3058000\tTrunc\tTrunc\t\t48.1",                               // line 12: truncated, no newline
        ].joined(separator: "\n")
        let g = try DefaultGazetteer.make(text, file: "small.txt")
        #expect(g.count == 2)
        #expect(g.report.places == 2)
        #expect(g.report.skipped == 8)
        #expect(g.report.skippedRows.map(\.line) == [3, 5, 6, 7, 8, 9, 10, 12])
        #expect(g.report.skippedRows.first?.description == "line 3: latitude is not a number in [-90, 90]")
        #expect(g.report.skippedRows[2].reason == "expected 19 tab-separated columns, found 3")
        #expect(g.place(id: 724443)?.name == "Košice")
        #expect(g.place(id: 3060972)?.population == 423737)
        #expect(g.geocode("kaschau")?.first?.place.id == 724443)
        #expect(g.place(id: 2) == nil)
        #expect(g.place(id: 999_999_999) == nil)
        #expect(g.place(id: -1) == nil)
    }

    @Test func wrongFormatIsRefusedNamingFileAndLine() {
        #expect(throws: PlacesError.wrongFormat(file: "c.csv", line: 2, reason: "expected 19 tab-separated columns, found 1")) {
            try DefaultGazetteer.make("# header\nid,name,lat,lon\n1,A,2,3\n", file: "c.csv")
        }
        #expect(throws: PlacesError.wrongFormat(file: "c.json", line: 1, reason: "expected 19 tab-separated columns, found 1")) {
            try DefaultGazetteer.make("{\"1\": {\"name\": \"A\"}}\n", file: "c.json")
        }
        #expect(throws: PlacesError.wrongFormat(file: "c.gz", line: 1, reason: "gzip-compressed: gunzip it first")) {
            try [UInt8]([0x1F, 0x8B, 0x08, 0x00]).withUnsafeBytes { buffer in try Gazetteer(dump: buffer, file: "c.gz") }
        }
        #expect(throws: PlacesError.noPlaces(file: "empty.txt", skipped: 0)) {
            try DefaultGazetteer.make("", file: "empty.txt")
        }
        #expect(throws: PlacesError.noPlaces(file: "comments.txt", skipped: 0)) {
            try DefaultGazetteer.make("# only\n# comments\n", file: "comments.txt")
        }
        #expect(PlacesError.wrongFormat(file: "c.csv", line: 2, reason: "x").description == "c.csv:2: not a GeoNames dump (x)")
    }

    @Test func aTruncatedDefaultLoadsEverythingBeforeTheCut() throws {
        let bytes = try #require(DefaultGazetteer.bytes)
        // Cut inside the 1,001st line: 1,000 places and one bad row.
        var newlines = 0, cut = 0
        for (i, byte) in bytes.enumerated() where byte == 0x0A {
            newlines += 1
            if newlines == 1000 { cut = i + 30; break }
        }
        let g = try Array(bytes[..<cut]).withUnsafeBytes { buffer in try Gazetteer(dump: buffer, file: "cut.txt") }
        #expect(g.count == 1000)
        #expect(g.report.skippedRows.map(\.line) == [1001])
    }
}
