import Testing
@testable import IsobarCore

/// The version rules every client shares (`AnnotationFollower`): what a viewport reports, one
/// `resync` per break, the three ways in (a line, a parsed object, a typed message) agreeing.
@Suite struct AnnotationFollowerTests {
    static func annotations(version: Int, full: Bool, upsert: [String] = [], remove: [String] = []) -> Annotations {
        Annotations(client: "alice", version: version, full: full, day: .today,
                    upsert: upsert.map { Annotations.Item(id: $0, coordinate: Coordinate(latitude: 1, longitude: 2), title: "4°", subtitle: $0) },
                    remove: remove)
    }

    static func line(_ message: Annotations) -> [UInt8] {
        var writer = JSONWriter()
        message.write(to: &writer)
        return Array(writer.bytes.dropLast())
    }

    /// One stream, with its steps and reported versions, through each way of applying.
    @Test(arguments: ["storage", "object", "typed"])
    func oneResyncPerBreakAndTheVersionReported(way: String) throws {
        var follower = AnnotationFollower()
        func apply(_ message: Annotations) throws -> AnnotationFollower.Step {
            switch way {
            case "storage": try follower.apply(storage: Self.line(message))
            case "object": try follower.apply(JSONObject(storage: Self.line(message)))
            default: follower.apply(message)
            }
        }
        #expect(follower.reportedVersion == nil)
        #expect(try apply(Self.annotations(version: 1, full: true, upsert: ["A", "B"])) == .applied)
        #expect(follower.reportedVersion == 1)
        #expect(try apply(Self.annotations(version: 1, full: false, remove: ["A"])) == .stale)
        #expect(try apply(Self.annotations(version: 2, full: false, upsert: ["C"], remove: ["A"])) == .applied)
        #expect(follower.reportedVersion == 2 && Set(follower.set.values.map(\.id)) == ["B", "C"])
        // A gap: one resync, then 0 reported until a full set; later diffs are gaps without one.
        #expect(try apply(Self.annotations(version: 4, full: false, upsert: ["D"])) == .gap(resync: true))
        #expect(follower.reportedVersion == 0)
        #expect(try apply(Self.annotations(version: 5, full: false, upsert: ["E"])) == .gap(resync: false))
        #expect(follower.reportedVersion == 0 && Set(follower.set.values.map(\.id)) == ["B", "C"])
        #expect(try apply(Self.annotations(version: 6, full: true, upsert: ["F"])) == .applied)
        #expect(follower.reportedVersion == 6 && Set(follower.set.values.map(\.id)) == ["F"])
        // A new break asks again.
        #expect(try apply(Self.annotations(version: 8, full: false)) == .gap(resync: true))
    }

    @Test func aRestoredSetIsReportedUntilTheWireAnswers() throws {
        var saved = AnnotationSet()
        _ = saved.apply(Self.annotations(version: 41, full: true, upsert: ["A"]))
        var follower = AnnotationFollower()
        follower.restore(saved)
        #expect(follower.restored && !follower.answered && follower.reportedVersion == 41)
        #expect(try follower.apply(storage: Self.line(Self.annotations(version: 42, full: false, upsert: ["B"]))) == .applied)
        #expect(!follower.restored && follower.answered && follower.reportedVersion == 42)
        #expect(throws: MessageError.self) { try follower.apply(storage: Array("not json".utf8)) }
    }
}
