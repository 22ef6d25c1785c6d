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

    /// The engine after the first snapshot and every client's viewport (and, `chain` given, with
    /// the formatter chained and every client's station K1D3 selected), and the next snapshot.
    func prepared(chain: FormatChain? = nil) throws -> (FilterEngine, [[UInt8]]) {
        var stations = try TestSupport.onx(.today)
        let engine = FilterEngine(options: chain?.chained(FilterOptions()) ?? FilterOptions())
        var writer = JSONWriter()
        let selects = chain == nil ? [] : (0..<Self.clients).map { Array(#"{"type":"select","client":"c\#($0)","id":"K1D3"}"#.utf8) }
        for line in TestSupport.snapshotLines(day: .today, stations: stations) + viewports() + selects {
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

    /// The same with the formatter chained (`filter --chain-format`): the pieces are formatted as
    /// they leave (each client's `selection` of K1D3 becomes a `callout`), none is larger than the
    /// spill size plus one answer, and together they are what the chain writes without spilling.
    @Test func chainedTheFeedChangeLeavesInBoundedFormattedPieces() throws {
        let referenceChain = FormatChain(format: FormatEngine())
        let (whole, change) = try prepared(chain: referenceChain)
        var reference = JSONWriter()
        for line in change {
            referenceChain.pass(into: &reference) { out in line.withUnsafeBytes { whole.handle(line: $0, now: 1_001, into: &out) } }
        }
        let longest = reference.bytes.split(separator: 0x0A).map(\.count).max() ?? 0
        let callouts = reference.bytes.split(separator: 0x0A).filter { $0.starts(with: Array(#"{"type":"callout""#.utf8)) }.count
        #expect(callouts == Self.clients)
        #expect(reference.bytes.count > 4 * Self.spillBytes)

        let chain = FormatChain(format: FormatEngine())
        let (engine, sameChange) = try prepared(chain: chain)
        var pieces: [[UInt8]] = []
        engine.spillBytes = Self.spillBytes
        engine.spill = { out in
            chain.spill(&out) { pieces.append($0.bytes); $0.removeAll() }
        }
        var writer = JSONWriter()
        for line in sameChange {
            chain.pass(into: &writer) { out in line.withUnsafeBytes { engine.handle(line: $0, now: 1_001, into: &out) } }
        }
        let held = pieces.map(\.count) + [writer.bytes.count]
        #expect(held.max() ?? 0 <= Self.spillBytes + longest + 1)
        #expect(pieces.count >= 4)
        #expect(Self.sortedLines(pieces.joined() + writer.bytes) == Self.sortedLines(reference.bytes))
    }

    static func sortedLines(_ bytes: [UInt8]) -> [ArraySlice<UInt8>] {
        bytes.split(separator: 0x0A).sorted { $0.lexicographicallyPrecedes($1) }
    }
}
