import Foundation
import Testing
@testable import IsobarTestSupport

/// The stages as plain programs in a shell pipe, exactly as the README shows them.
@Suite(.serialized, .processSlot) struct PipelineTests {
    static let fixtures = ProcessHarness.packageRoot.appendingPathComponent("Fixtures")

    /// Runs a shell pipeline of the built binary (`$ISOBAR` in `script`) and returns its stdout lines.
    func pipeline(_ script: String, stdin: String? = nil) async throws -> (lines: [[String: Any]], stderr: String) {
        let process = try await ProcessHarness("/bin/sh", ["-c", script], environment: ["ISOBAR": ProcessHarness.isobarBinary])
        if let stdin { try process.write(stdin) }
        process.closeStdin()
        var lines: [[String: Any]] = []
        while let line = await process.nextStdoutLine(timeout: .seconds(60)) {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "not JSON: \(line)")
            lines.append(object)
        }
        // `sh -c` exits with the status of the pipeline's last command: every stage ends cleanly at
        // the end of its input, so anything but 0 is a failure.
        #expect(await process.waitForExit(timeout: .seconds(10)) == .exited(0), "pipeline: \(script)")
        return (lines, "")
    }

    /// The onX fixture records that the contract's rule puts in the viewport (independent reference).
    func expectedIDs(day: String, lat: Double, lon: Double, dlat: Double, dlon: Double) throws -> Set<String> {
        let data = try Data(contentsOf: Self.fixtures.appendingPathComponent("\(day).json"))
        let records = try #require(try JSONSerialization.jsonObject(with: data) as? [[String: Any]])
        var ids = Set<String>()
        for record in records {
            guard let id = record["id"] as? String, let la = (record["latitude"] as? NSNumber)?.doubleValue,
                  let lo = (record["longitude"] as? NSNumber)?.doubleValue else { continue }
            var delta = (lo - lon).truncatingRemainder(dividingBy: 360)
            if delta > 180 { delta -= 360 } else if delta < -180 { delta += 360 }
            if la >= max(-90, lat - dlat / 2), la <= min(90, lat + dlat / 2), abs(delta) <= dlon / 2 { ids.insert(id) }
        }
        return ids
    }

    func annotations(_ lines: [[String: Any]]) -> [String: [String: Any]] {
        var items: [String: [String: Any]] = [:]
        for line in lines where line["type"] as? String == "annotations" {
            if line["full"] as? Bool == true { items = [:] }
            for id in line["remove"] as? [String] ?? [] { items[id] = nil }
            for item in line["upsert"] as? [[String: Any]] ?? [] { items[item["id"] as! String] = item }
        }
        return items
    }

    @Test func fetchFilterFormatShowsThe85StationsOfTheInitialRegion() async throws {
        let f = Self.fixtures.path
        let result = try await pipeline(#"$ISOBAR fetch --once --today \#(f)/today.json --tomorrow \#(f)/tomorrow.json | $ISOBAR filter --viewport 40.924,-108.0955,25,20 | $ISOBAR format"#)
        let items = annotations(result.lines)
        let expected = try expectedIDs(day: "today", lat: 40.924, lon: -108.0955, dlat: 25, dlon: 20)
        #expect(expected.count == 85)
        #expect(Set(items.keys) == expected)
        #expect(items["K1D3"]?["title"] as? String == "46°")
        #expect(items["K6V4"]?["title"] as? String == "")
        let coordinate = items["K1D3"]?["coordinate"] as? [String: Double]
        #expect(coordinate?["latitude"] == 43.40332 && coordinate?["longitude"] == -98.82952)
        // Fetch's warnings (tomorrow's 105 %) and status lines pass through the pipe; nothing else.
        let types = Set(result.lines.compactMap { $0["type"] as? String })
        #expect(types == ["annotations", "status", "warning"])
        #expect(result.lines.filter { $0["type"] as? String == "status" }.map { $0["state"] as? String } == ["ok", "ok"])
        #expect(result.lines.filter { $0["type"] as? String == "warning" }.count == 5)
    }

    @Test func windAndTomorrowThroughThePipe() async throws {
        let f = Self.fixtures.path
        let wind = annotations(try await pipeline(#"$ISOBAR fetch --once --today \#(f)/today.json --tomorrow \#(f)/tomorrow.json | $ISOBAR filter --viewport 40.924,-108.0955,25,20 --field wind | $ISOBAR format"#).lines)
        #expect(wind["K1D3"]?["title"] as? String == "7 mph W →")
        let detail = wind["K1D3"]?["wind"] as? [String: Any]
        #expect(detail?["from"] as? String == "W" && detail?["arrow"] as? String == "→" && detail?["rotation"] as? Double == 90)
        #expect(wind["K6V4"]?["title"] as? String == "")
        let rain = annotations(try await pipeline(#"$ISOBAR fetch --once --today \#(f)/today.json --tomorrow \#(f)/tomorrow.json | $ISOBAR filter --viewport 40,-100,80,120 --day tomorrow --field precipitation --limit 1000 | $ISOBAR format"#).lines)
        #expect(rain.count == 181)
        let tomorrow = try JSONSerialization.jsonObject(with: Data(contentsOf: Self.fixtures.appendingPathComponent("tomorrow.json"))) as? [[String: Any]] ?? []
        let over = tomorrow.filter { ($0["chance_of_precipitation"] as? Int ?? 0) > 100 }.compactMap { $0["id"] as? String }
        #expect(over.count == 5)
        for id in over { #expect(rain[id]?["title"] as? String == "100%") }
    }

    @Test func badLinesInThePipeCostOneErrorEachAndNothingElse() async throws {
        let f = Self.fixtures.path
        let clean = try await pipeline(#"$ISOBAR fetch --once --today \#(f)/today.json --tomorrow \#(f)/tomorrow.json | $ISOBAR filter --viewport 40.924,-108.0955,25,20 | $ISOBAR format"#)
        // Interleave garbage between every fetch line.
        let dirty = try await pipeline(#"$ISOBAR fetch --once --today \#(f)/today.json --tomorrow \#(f)/tomorrow.json | awk '{print; print "garbage {"; print "{\"type\":\"station\",\"latitude\":91}"}' | $ISOBAR filter --viewport 40.924,-108.0955,25,20 | $ISOBAR format"#)
        let cleanItems = annotations(clean.lines)
        let dirtyItems = annotations(dirty.lines)
        #expect(Set(cleanItems.keys) == Set(dirtyItems.keys))
        #expect(cleanItems.mapValues { $0["title"] as? String } == dirtyItems.mapValues { $0["title"] as? String })
        let fetchLines = 181 * 2 + 2 + 5 + 2  // stations, end markers, warnings, status
        #expect(dirty.lines.filter { $0["type"] as? String == "error" }.count == fetchLines * 2)
    }
}
