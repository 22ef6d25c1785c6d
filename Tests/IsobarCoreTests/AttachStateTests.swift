import Testing
@testable import IsobarCore

/// `isobar attach`'s rules without the bus: announcing until answered, the heartbeat's version,
/// gaps and their repair, the broadcast resync, and what each answer kind does.
@Suite struct AttachStateTests {
    func initialRegion() throws -> Region {
        try Region(center: Coordinate(latitude: 40.924, longitude: -108.0955), latitudeDelta: 25, longitudeDelta: 20)
    }

    func annotations(version: Int, full: Bool, upsert: [String] = [], remove: [String] = []) -> [UInt8] {
        var writer = JSONWriter()
        Annotations(client: "alice", version: version, full: full, day: .today,
                    upsert: upsert.map { Annotations.Item(id: $0, coordinate: Coordinate(latitude: 1, longitude: 2), title: "4°", subtitle: $0) },
                    remove: remove).write(to: &writer)
        return Array(writer.bytes.dropLast())
    }

    @Test func announcesUntilAnsweredThenHeartbeatsTheAppliedVersion() throws {
        let region = try initialRegion()
        var state = AttachState(client: "alice", viewport: nil)
        #expect(!state.isWaitingForAnswer && state.heartbeat == nil)  // nothing to announce yet
        state.update(Viewport(client: "alice", region: region))
        #expect(state.isWaitingForAnswer && state.phase == .waitingForAnswer)
        #expect(state.heartbeat?.version == nil)
        #expect(state.receive(topic: "annotations/alice", payload: annotations(version: 4, full: true, upsert: ["A", "B"]))
                == AttachState.Reaction(print: true, changed: true))
        #expect(state.phase == .answered && !state.isWaitingForAnswer)
        #expect(state.heartbeat?.version == 4 && state.heartbeat?.region == region)
        #expect(Set(state.annotations.items.keys) == ["A", "B"])
    }

    @Test func aGapAsksForAResyncAndHeartbeatsZeroUntilAFullSet() throws {
        let region = try initialRegion()
        var state = AttachState(client: "alice", viewport: Viewport(client: "alice", region: region))
        _ = state.receive(topic: "annotations/alice", payload: annotations(version: 1, full: true, upsert: ["A"]))
        #expect(state.receive(topic: "annotations/alice", payload: annotations(version: 2, full: false, upsert: ["B"])).resync == nil)
        let gap = state.receive(topic: "annotations/alice", payload: annotations(version: 4, full: false, remove: ["A"]))
        #expect(gap == AttachState.Reaction(resync: "version gap", print: true, changed: true))
        #expect(state.heartbeat?.version == 0)
        // Diffs after a gap do not repair it; a full set does.
        _ = state.receive(topic: "annotations/alice", payload: annotations(version: 5, full: false, upsert: ["C"]))
        #expect(state.heartbeat?.version == 0)
        _ = state.receive(topic: "annotations/alice", payload: annotations(version: 6, full: true, upsert: ["D"]))
        #expect(state.heartbeat?.version == 6 && Set(state.annotations.items.keys) == ["D"])
    }

    @Test func onlyTheBareResyncAnnounces() {
        var state = AttachState(client: "alice", viewport: nil)
        #expect(state.receive(topic: "resync", payload: Array(#"{"type":"resync","reason":"filter started"}"#.utf8)).announce)
        #expect(!state.receive(topic: "resync", payload: Array(#"{"type":"resync","client":"bob","reason":"x"}"#.utf8)).announce)
        #expect(state.receive(topic: "resync", payload: Array("not json".utf8)) == AttachState.Reaction())
    }

    @Test func eachAnswerKindIsKeptAndPrinted() {
        var state = AttachState(client: "alice", viewport: nil)
        let line = Array(#"{"type":"x"}"#.utf8)
        #expect(state.receive(topic: "callout/alice", payload: line) == AttachState.Reaction(print: true, changed: true))
        #expect(state.callout == line)
        for topic in ["place/alice", "results/alice", "report/alice", "locations/alice", "vicinity/alice", "conditions/alice"] {
            _ = state.receive(topic: topic, payload: line + [UInt8(topic.count)])
            #expect(state.found == line + [UInt8(topic.count)])
        }
        // A search's two answers are kept apart too (the terminal map lists places, then stations).
        #expect(state.results == line + [UInt8("results/alice".count)])
        #expect(state.locations == line + [UInt8("locations/alice".count)])
        #expect(state.receive(topic: "starred/alice", payload: line).changed && state.starred == line)
        #expect(state.receive(topic: "error/alice", payload: line) == AttachState.Reaction(print: true))
        #expect(state.receive(topic: "status", payload: line) == AttachState.Reaction(changed: true) && state.status == #"{"type":"x"}"#)
        #expect(state.receive(topic: "annotations/bob", payload: line) == AttachState.Reaction())
        // Annotations that are JSON but not valid still count as an answer and are printed.
        #expect(state.receive(topic: "annotations/alice", payload: line) == AttachState.Reaction(print: true))
        #expect(state.phase == .answered)
        #expect(state.topics == ["annotations/alice", "callout/alice", "place/alice", "results/alice", "starred/alice", "report/alice",
                                 "locations/alice", "vicinity/alice", "conditions/alice", "error/alice", "resync", "status"])
    }
}
