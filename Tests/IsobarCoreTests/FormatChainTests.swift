import Testing
@testable import IsobarCore

/// The formatter chained behind the filter (`isobar filter --chain-format`: `FormatChain`,
/// `FilterOptions.chainedFormat`) against the two stages apart: for the same input, the chained
/// filter's output must be byte for byte the separate filter's output with every line the
/// formatter subscribes to replaced by what `FormatEngine` makes of it (what the bus would carry
/// from the two stages together, minus the `visible` lines between them).
@Suite struct FormatChainTests {
    func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    /// The reference: the separate filter's lines, those of a type the formatter subscribes to
    /// (read with the JSON parser, not with the chain's prefix check) through a separate formatter.
    func formattedApart(_ filterOutput: [UInt8], format: FormatEngine) -> [UInt8] {
        var out = JSONWriter()
        for line in filterOutput.split(separator: 0x0A, omittingEmptySubsequences: false).dropLast() {
            let bytes = Array(line)
            let type = (try? JSONObject(storage: bytes)).flatMap { try? $0.requireString("type") }
            if let type, FormatEngine.subscriptions.contains(type) {
                bytes.withUnsafeBytes { format.handle(line: $0, into: &out) }
            } else {
                out.raw(bytes)
                out.newline()
            }
        }
        return out.bytes
    }

    /// Stations with what the formatter must copy or rewrite exactly: escapes and a DEL in names,
    /// -0, long fractions, integral values, missing values, high and low coordinates.
    static let oddStations = [
        Station(id: "ODD-1", name: #"Quote "here" and \ back"#, coordinate: Coordinate(latitude: 10.123456789, longitude: -0.0),
                temperature: -0.0, windSpeed: 6.90468887898, windDirection: 359.99, precipitation: 0),
        Station(id: "ODD-2", name: "Tab\tDEL\u{7F}é Žilina", coordinate: Coordinate(latitude: -60.00001, longitude: 179.99999),
                temperature: -199.99, windSpeed: 0, windDirection: nil, precipitation: 100),
        Station(id: "ODD-3", name: "", coordinate: Coordinate(latitude: 10.2, longitude: 0.1),
                temperature: nil, windSpeed: nil, windDirection: 45, precipitation: nil),
    ]

    /// One script of input lines: two snapshots of today (values changed between them, so diffs
    /// carry changes), tomorrow, random world viewports with every field, unit, locale and limit,
    /// and the per-request messages (select, nearest, search, favorite, detail, resync), plus a bad line.
    func script(seed: UInt64, viewports: Int) throws -> [[UInt8]] {
        let world = try TestSupport.world() + Self.oddStations
        var changed = world
        for n in stride(from: 0, to: changed.count, by: 3) {
            changed[n].temperature = changed[n].temperature.map { $0 + 1.5 }
            changed[n].windSpeed = Double(n % 40)
            changed[n].windDirection = Double(n % 360)
        }
        var lines = TestSupport.snapshotLines(day: .today, stations: world, id: "today-a", fetchedAt: 1_000)
            + TestSupport.snapshotLines(day: .tomorrow, stations: changed, id: "tomorrow-a", fetchedAt: 1_000)
        var random = TestSupport.Random(seed: seed)
        let extras = [#","limit":5"#, #","field":"wind","units":"metric","locale":"sk""#, #","field":"precipitation""#,
                      #","field":"wind","windUnit":"knots","limit":40"#, #","day":"tomorrow","units":"metric""#, ""]
        for n in 0..<viewports {
            // Each client keeps its presentation (so most answers are diffs) and pans a little
            // after each jump; one client in nine changes presentation every time (full sets).
            let client = "c\(n % 9)"
            let extra = n % 9 == 8 ? extras[n % extras.count] : extras[n % 9 % extras.count]
            let lat = random.uniform(-80...80), lon = random.uniform(-180...180)
            let dlat = random.uniform(0.5...60), dlon = random.uniform(0.5...120)
            for step in 0..<2 {
                let center = (lat + Double(step) * dlat / 10, lon + Double(step) * dlon / 10)
                lines.append(Array((#"{"type":"viewport","client":"\#(client)","center":{"latitude":\#(center.0),"longitude":\#(center.1)},"#
                    + #""span":{"latitudeDelta":\#(dlat),"longitudeDelta":\#(dlon)}\#(extra)}"#).utf8))
            }
            let id = world[Int(random.next() % UInt64(world.count))].id
            switch n % 8 {
            case 1: lines.append(Array(#"{"type":"select","client":"\#(client)","id":"\#(id)"}"#.utf8))
            case 2: lines.append(Array(#"{"type":"nearest","client":"\#(client)","latitude":\#(lat),"longitude":\#(lon)}"#.utf8))
            case 3: lines.append(Array(#"{"type":"search","client":"\#(client)","query":"air","limit":5}"#.utf8))
            case 4: lines.append(Array(#"{"type":"favorite","client":"\#(client)","id":"\#(id)","on":true}"#.utf8))
            case 5: lines.append(Array(#"{"type":"detail","client":"\#(client)","id":"\#(id)","locale":"sk"}"#.utf8))
            case 6: lines.append(Array(#"{"type":"resync","client":"\#(client)"}"#.utf8))
            default: break
            }
            if n == viewports / 2 {
                // New values for today: every client of today gets a diff with changes.
                lines += TestSupport.snapshotLines(day: .today, stations: changed, id: "today-b", fetchedAt: 2_000)
                lines.append(Array(#"{"type":"viewport","client":"c1","center":{"latitude":95}"#.utf8))
            }
        }
        // The odd stations in view, every field.
        for (n, extra) in extras.enumerated() {
            lines.append(Array((#"{"type":"viewport","client":"odd\#(n)","center":{"latitude":0,"longitude":0},"#
                + #""span":{"latitudeDelta":179,"longitudeDelta":359}\#(extra)}"#).utf8))
            lines.append(Array((#"{"type":"viewport","client":"odd\#(n)","center":{"latitude":10,"longitude":0},"#
                + #""span":{"latitudeDelta":1,"longitudeDelta":1}\#(extra)}"#).utf8))
        }
        return lines
    }

    /// The two layouts over one script: (apart, chained).
    func run(_ lines: [[UInt8]], options: FilterOptions, wallClock: Double, format: FormatEngine) -> (apart: [UInt8], chained: [UInt8]) {
        let apart = FilterEngine(options: options, wallClock: { wallClock })
        let chain = FormatChain(format: format)
        let chained = FilterEngine(options: chain.chained(options), wallClock: { wallClock })
        var a = JSONWriter(), c = JSONWriter()
        for (n, line) in lines.enumerated() {
            let now = 1_000 + Double(n) * 0.01
            line.withUnsafeBytes { bytes in
                apart.handle(line: bytes, now: now, into: &a)
                chain.pass(into: &c) { chained.handle(line: bytes, now: now, into: &$0) }
            }
        }
        apart.tick(now: 1_000 + Double(lines.count), into: &a)
        chain.pass(into: &c) { chained.tick(now: 1_000 + Double(lines.count), into: &$0) }
        return (formattedApart(a.bytes, format: format), c.bytes)
    }

    /// The lines of each client (the `client` field; "" for none), in order.
    func perClient(_ bytes: [UInt8]) -> [String: [String]] {
        var lines: [String: [String]] = [:]
        for line in bytes.split(separator: 0x0A) {
            let client = (try? JSONObject(storage: Array(line))).flatMap { try? $0.optionalString("client") } ?? ""
            lines[client, default: []].append(text(Array(line)))
        }
        return lines
    }

    func count(_ needle: String, in haystack: String) -> Int { haystack.components(separatedBy: needle).count - 1 }

    @Test(arguments: [(stale: true, units: Units.imperial), (stale: false, units: Units.metric)])
    func chainedFilterWritesWhatTheTwoStagesWrite(stale: Bool, units: Units) throws {
        var options = FilterOptions()
        options.staleAfter = 3_600
        let format = FormatEngine(defaults: ResolvedPresentation(units: units, locale: units == .metric ? .sk : .en))
        let lines = try script(seed: stale ? 11 : 12, viewports: 240)
        let (apart, chained) = run(lines, options: options, wallClock: stale ? 1_000 + 7_200 : 2_000, format: format)
        // Per client, the same lines in the same order (answers to several clients after one
        // input, a new snapshot's, come in the order of the filter's client table, which is not
        // the same in two engines); in all, the same lines.
        let apartLines = perClient(apart), chainedLines = perClient(chained)
        #expect(apartLines.keys.sorted() == chainedLines.keys.sorted())
        for (client, lines) in apartLines.sorted(by: { $0.key < $1.key }) where lines != chainedLines[client] {
            let other = chainedLines[client] ?? []
            let n = (0..<min(lines.count, other.count)).first { lines[$0] != other[$0] } ?? min(lines.count, other.count)
            Issue.record("client \(client): line \(n) of \(lines.count) differs:\n apart:   \(n < lines.count ? lines[n].prefix(300) : "(none)")\n chained: \(n < other.count ? other[n].prefix(300) : "(none)")")
            break
        }
        let same = apart.count == chained.count && apartLines == chainedLines
        #expect(same)
        // What the comparison covered (else it would prove little).
        let out = text(chained)
        let visible = out.contains(#"{"type":"visible""#)
        #expect(!visible)
        #expect(count(#"{"type":"annotations""#, in: out) > 240)
        #expect(count(#""full":false"#, in: out) > 100)
        #expect(count(#""cluster":true"#, in: out) > 100)
        #expect(count(#""stale":true"#, in: out) > (stale ? 100 : -1))
        let anyStale = out.contains(#""stale":true"#)
        #expect(stale == anyStale)
        #expect(count(#"{"type":"callout""#, in: out) > 20)
        #expect(count(#"{"type":"place""#, in: out) > 20)
        #expect(count(#"{"type":"results""#, in: out) > 20)
        #expect(count(#"{"type":"starred""#, in: out) > 20)
        #expect(count(#"{"type":"report""#, in: out) > 20)
        #expect(count(#"{"type":"error""#, in: out) >= 1)
        for id in ["ODD-1", "ODD-2", "ODD-3"] {
            let shown = out.contains(#"{"id":"\#(id)","coordinate""#)
            #expect(shown, "\(id) never shown")
        }
        let quoted = out.contains(#"Quote \"here\" and \\ back"#)
        #expect(quoted)
    }

    @Test func chainPassesOtherLinesAndFormatsOnlySubscribedTypes() {
        let lines = [#"{"type":"tally","gateway":"g"}"#, #"{"type":"visiblex","client":"a"}"#, #"{"type":"error","message":"m"}"#]
        let chain = FormatChain(format: FormatEngine())
        var out = JSONWriter()
        chain.pass(into: &out) { writer in for line in lines { writer.raw(Array(line.utf8)); writer.newline() } }
        #expect(text(out.bytes) == lines.joined(separator: "\n") + "\n")
        out.removeAll()
        let selection = #"{"type":"selection","client":"a","id":"K1","day":"today","reason":"cleared"}"#
        chain.pass(into: &out) { writer in
            writer.raw(Array(lines[0].utf8)); writer.newline()
            writer.raw(Array(selection.utf8)); writer.newline()
        }
        var callout = JSONWriter()
        TestSupport.withLine(selection) { FormatEngine().handle(line: $0, into: &callout) }
        #expect(text(callout.bytes).hasPrefix(#"{"type":"callout","client":"a""#))
        #expect(text(out.bytes) == lines[0] + "\n" + text(callout.bytes))
    }
}
