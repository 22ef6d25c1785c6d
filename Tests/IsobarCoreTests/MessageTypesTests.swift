import Foundation
import Testing
@testable import IsobarCore

/// The table of message types (``MessageTypes/standard``) is the one list: every derivation gives
/// exactly what the pipeline did before the table existed (these expectations are the old
/// hand-written lists), the schemas, the web page and PROTOCOL.md agree with it, and a row added
/// to it routes with no other change.
@Suite struct MessageTypesTests {
    let types = MessageTypes.standard

    @Test func namesAreUniqueAndEachHasASchema() throws {
        #expect(Set(types.names).count == types.names.count)
        let schemas = try FileManager.default.contentsOfDirectory(atPath: TestSupport.packageRoot.appendingPathComponent("schema/messages").path)
            .filter { $0.hasSuffix(".json") }.map { String($0.dropLast(".json".count)) }
        #expect(Set(schemas) == Set(types.names))
    }

    /// The typed names code dispatches on are the table's rows, in order: a row added without its
    /// name (or a name without its row) fails here.
    @Test func typedNamesAreTheTableRows() {
        #expect(MessageName.allCases.map(\.rawValue) == MessageTypes.standard.names)
    }

    @Test func stagesSubscribeToWhatTheyConsume() {
        #expect(types.subscriptions(of: .filter) == ["station", "snapshot", "viewport/", "select/", "resync", "lease", "leave/",
                                                     "nearest/", "search/", "favorite/", "detail/", "spot/", "forecast"])
        #expect(types.subscriptions(of: .format) == ["visible", "selection", "closest", "matches", "pinned", "particulars", "ambient"])
        #expect(types.subscriptions(of: .places) == ["geocode/", "reverse/", "weather/", "bookmark/"])
        #expect(types.subscriptions(of: .forecast) == ["outlook"])
        #expect(types.subscriptions(of: .persist) == ["station", "snapshot", "resync"])
        #expect(types.subscriptions(of: .fetch) == ["resync"])
        #expect(FilterEngine.subscriptions == types.subscriptions(of: .filter))
        #expect(FormatEngine.subscriptions == types.subscriptions(of: .format))
        #expect(PlacesEngine.subscriptions == types.subscriptions(of: .places))
        #expect(ForecastEngine.subscriptions == types.subscriptions(of: .forecast))
    }

    @Test func clientsSubscribeToTheirAnswers() {
        #expect(types.clientSubscriptions(of: .attach, client: "alice") == [
            "annotations/alice", "callout/alice", "place/alice", "results/alice", "starred/alice", "report/alice",
            "locations/alice", "vicinity/alice", "conditions/alice", "error/alice", "resync", "status"])
        #expect(types.clientSubscriptions(of: .gateway, client: "") == [
            "annotations/", "callout/", "place/", "results/", "starred/", "report/", "locations/", "vicinity/", "conditions/", "error/",
            "resync", "status", "tally"])
        #expect(types.clientSent == ["viewport", "select", "resync", "nearest", "search", "favorite", "detail", "geocode", "reverse", "weather", "bookmark"])
        #expect(AttachState(client: "bob", viewport: nil).topics == types.clientSubscriptions(of: .attach, client: "bob"))
    }

    @Test func routedTypesCarryThePartition() {
        #expect(types.routedTypes == ["viewport", "select", "leave", "nearest", "search", "favorite", "detail", "spot"])
        #expect(ClientPartition.routedTypes == types.routedTypes)
        let partition = ClientPartition.label(ClientPartition.of("alice"))
        for entry in types.entries {
            let line = #"{"type":"\#(entry.name)","client":"alice"}"#
            let expected = entry.topic == .perPartition ? "\(entry.name)/\(partition)/alice" : "\(entry.name)/alice"
            #expect(Self.topic(line) == expected)
            #expect(Topic.of(type: entry.name, client: "alice") == expected)
        }
        // Near misses of a routed name's length and bytes are not routed.
        for name in ["viewpork", "selecT", "spots", "spo", "leaves", "selection"] {
            #expect(Topic.of(type: name, client: "alice") == "\(name)/alice")
            #expect(Self.topic(#"{"type":"\#(name)","client":"alice"}"#) == "\(name)/alice")
        }
    }

    /// One new row, nothing else: its topic carries the partition, a shard subscribes to its
    /// partitions of it, and its answer reaches the gateway's and attach's subscriptions.
    @Test func aNewRowRoutesThroughShardsAndClients() throws {
        let more = types.adding(
            MessageType("wave", writers: [.app], consumers: [.filter], topic: .perPartition, clientSends: true),
            MessageType("ripple", writers: [.format], consumers: [.gateway, .attach], topic: .perClient, clientReceives: true))
        let partition = ClientPartition.of("alice")
        var deriver = TopicDeriver(types: more)
        let derived = Array(#"{"type":"wave","client":"alice"}"#.utf8).withUnsafeBytes { deriver.derive($0) }
        #expect(derived)
        #expect(String(decoding: deriver.topic, as: UTF8.self) == "wave/\(ClientPartition.label(partition))/alice")
        #expect(Topic.of(type: "wave", client: "alice", types: more) == "wave/\(ClientPartition.label(partition))/alice")
        #expect(more.subscriptions(of: .filter).last == "wave/")
        let shard = try #require(Shard(index: 1, count: 2))
        let waves = shard.subscriptions(more.subscriptions(of: .filter), types: more).filter { $0.hasPrefix("wave/") }
        #expect(waves == stride(from: 1, to: 64, by: 2).map { "wave/" + ClientPartition.label($0) + "/" })
        #expect(more.clientSent.last == "wave")
        #expect(more.clientSubscriptions(of: .gateway, client: "").contains("ripple/"))
        #expect(more.relayedPrefixes.contains("ripple/"))
        #expect(more.clientSubscriptions(of: .attach, client: "alice").contains("ripple/alice"))
        // The standard table is untouched.
        #expect(Topic.of(type: "wave", client: "alice") == "wave/alice")
    }

    /// PROTOCOL.md's "Who consumes what" names, per stage, exactly what the table says it consumes.
    @Test func protocolTableMatches() throws {
        let text = try String(contentsOf: TestSupport.packageRoot.appendingPathComponent("PROTOCOL.md"), encoding: .utf8)
        let section = try #require(text.components(separatedBy: "## Who consumes what").dropFirst().first)
        var rows: [String: Set<String>] = [:]
        for line in section.split(separator: "\n").prefix(while: { !$0.hasPrefix("## ") }) where line.hasPrefix("| ") {
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 2, let party = Party(rawValue: cells[0]) else { continue }
            rows[party.rawValue] = Self.codeNames(cells[1])
        }
        for party in Party.stages + [.gateway] {
            let consumed = Set(types.entries.filter { $0.consumers.contains(party) }.map(\.name))
            #expect(rows[party.rawValue] == consumed, "PROTOCOL.md's \(party) row")
        }
    }

    /// The web page sends only what a client may send and handles only what clients receive.
    @Test func webPageSpeaksTheTable() throws {
        let web = TestSupport.packageRoot.appendingPathComponent("Web")
        var sent: Set<String> = []
        var handled: Set<String> = []
        for file in try FileManager.default.contentsOfDirectory(atPath: web.path) where file.hasSuffix(".mjs") {
            let text = try String(contentsOf: web.appendingPathComponent(file), encoding: .utf8)
            sent.formUnion(Self.matches(#"type: "([a-z]+)""#, in: text))
            handled.formUnion(Self.matches(#"\.type === "([a-z]+)""#, in: text))
            if let body = text.components(separatedBy: "function receiveOther(").dropFirst().first?.components(separatedBy: "\n}\n").first {
                handled.formUnion(Self.matches(#"case "([a-z]+)":"#, in: body))
            }
        }
        #expect(sent == ["viewport", "select", "resync", "nearest", "search", "favorite", "bookmark", "detail", "geocode", "reverse", "weather"])
        #expect(sent.isSubset(of: types.clientSent))
        #expect(handled.isSubset(of: types.clientReceived), "handled but not client-facing: \(handled.subtracting(types.clientReceived))")
        #expect(handled == ["annotations", "callout", "status", "place", "results", "locations", "vicinity", "starred", "report", "conditions", "error"])
    }

    /// The `code` spans of a table cell, each cut at its first `/` or space (`annotations/<its
    /// clients>` is `annotations`).
    static func codeNames(_ cell: String) -> Set<String> {
        Set(cell.split(separator: "`", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }
            .map { String($0.element.prefix { $0 != "/" && $0 != " " }) })
    }

    static func topic(_ line: String) -> String? {
        Array(line.utf8).withUnsafeBytes { Topic.derive(fromLine: $0) }
    }

    static func matches(_ pattern: String, in text: String) -> Set<String> {
        guard let regex = try? NSRegularExpression(pattern: pattern) else { return [] }
        let range = NSRange(text.startIndex..., in: text)
        return Set(regex.matches(in: text, range: range).compactMap { Range($0.range(at: 1), in: text).map { String(text[$0]) } })
    }
}
