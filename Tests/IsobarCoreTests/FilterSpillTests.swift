import Testing
@testable import IsobarCore

/// A feed change seen by many clients: the filter's answers leave in pieces of about
/// `FilterEngine.spillBytes`, never all at once (issue 27, item 8: 10,000 clients took the filter
/// to 512 MB at the next feed change), and the pieces put together are exactly the whole answer.
@Suite struct FilterSpillTests {
    static let clients = 40
    /// Small pieces, so a few clients make several.
    static let spillBytes = 64 * 1024

    /// Every client looks at most of the onX fixture, from its own centre.
    func viewports() -> [[UInt8]] {
        (0..<Self.clients).map { index in
            let lat = 30 + Double(index % 20), lon = -120 + Double(index / 20)
            return Array(#"{"type":"viewport","client":"c\#(index)","center":{"latitude":\#(lat),"longitude":\#(lon)},"span":{"latitudeDelta":60,"longitudeDelta":90},"day":"today"}"#.utf8)
        }
    }

    /// The engine after the first snapshot and every client's viewport, and the next snapshot.
    func prepared() throws -> (FilterEngine, [[UInt8]]) {
        var stations = try TestSupport.onx(.today)
        let engine = FilterEngine()
        var writer = JSONWriter()
        for line in TestSupport.snapshotLines(day: .today, stations: stations) + viewports() {
            line.withUnsafeBytes { engine.handle(line: $0, now: 1_000, into: &writer) }
        }
        for index in stations.indices { stations[index].temperature = (stations[index].temperature ?? 0) + 1 }
        return (engine, TestSupport.snapshotLines(day: .today, stations: stations, fetchedAt: 2_000))
    }

    @Test func aFeedChangeForManyClientsLeavesInBoundedPieces() throws {
        let (whole, change) = try prepared()
        var reference = JSONWriter()
        for line in change { line.withUnsafeBytes { whole.handle(line: $0, now: 1_001, into: &reference) } }
        // One client's answer: the longest line (a `visible` with every station it sees).
        let longest = reference.bytes.split(separator: 0x0A).map(\.count).max() ?? 0
        #expect(reference.bytes.count > 4 * Self.spillBytes)

        let (engine, sameChange) = try prepared()
        var pieces: [[UInt8]] = []
        engine.spillBytes = Self.spillBytes
        engine.spill = { out in
            pieces.append(out.bytes)
            out.removeAll()
        }
        var writer = JSONWriter()
        for line in sameChange { line.withUnsafeBytes { engine.handle(line: $0, now: 1_001, into: &writer) } }
        let held = pieces.map(\.count) + [writer.bytes.count]
        // Never more than the spill size plus one client's answer held at once ...
        #expect(held.max() ?? 0 <= Self.spillBytes + longest + 1)
        #expect(pieces.count >= 4)
        // ... and byte for byte what the engine writes without spilling (the clients' order is
        // each engine's dictionary order, so the lines are compared sorted).
        let same = Self.sortedLines(pieces.joined() + writer.bytes) == Self.sortedLines(reference.bytes)
        #expect(same)
    }

    static func sortedLines(_ bytes: [UInt8]) -> [ArraySlice<UInt8>] {
        bytes.split(separator: 0x0A).sorted { $0.lexicographicallyPrecedes($1) }
    }
}
