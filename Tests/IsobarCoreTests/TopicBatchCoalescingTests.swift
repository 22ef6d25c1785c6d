import Testing
@testable import IsobarCore

/// Coalescing (`TopicBatch.groups`): consecutive lines of different topics of one type leave under
/// the group frame `T/` while no subscription narrower than the group is known.
@Suite struct TopicBatchCoalescingTests {
    typealias Frame = (topic: String, payload: String)

    /// Feeds (topic, line) pairs through a coalescing batch whose subscriptions are `subscriptions`
    /// (each `+topic` or `-topic`, as an XPUB socket reports them).
    func frames(_ input: [(String, String)], subscriptions: [String] = [], coalescing: Bool = true) -> [Frame] {
        var batch = TopicBatch(capacity: 64)
        if coalescing {
            var groups = SubscriptionGroups()
            for change in subscriptions {
                let message = [UInt8(change.first == "+" ? 1 : 0)] + Array(change.dropFirst().utf8)
                message.withUnsafeBytes { groups.apply($0) }
            }
            batch.groups = groups
        }
        var out: [Frame] = []
        let send: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) -> Void = { topic, payload in
            out.append((String(decoding: topic, as: UTF8.self), String(decoding: payload, as: UTF8.self)))
        }
        for (topic, line) in input {
            Array(topic.utf8).withUnsafeBytes { t in
                Array(line.utf8).withUnsafeBytes { batch.add(topic: t, line: $0, send: send) }
            }
        }
        batch.flush(send)
        return out
    }

    let lines = [("annotations/alice", "a1"), ("annotations/bob", "b1"), ("annotations/bob", "b2"),
                 ("tally", "t1"), ("annotations/carol", "c1")]

    @Test func linesOfOneTypeShareTheGroupFrameAndALoneLineKeepsItsTopic() {
        let got = frames(lines)
        #expect(got.map(\.topic) == ["annotations/", "tally", "annotations/carol"])
        #expect(got.map(\.payload) == ["a1\nb1\nb2", "t1", "c1"])
    }

    @Test func withoutGroupsOnlyOneTopicShareAFrame() {
        let got = frames(lines, coalescing: false)
        #expect(got.map(\.topic) == ["annotations/alice", "annotations/bob", "tally", "annotations/carol"])
        #expect(got.map(\.payload) == ["a1", "b1\nb2", "t1", "c1"])
    }

    @Test func aNarrowerSubscriptionStopsTheGroupUntilItIsGone() {
        let narrowed = frames(lines, subscriptions: ["+annotations/", "+annotations/alice"])
        #expect(narrowed.map(\.topic) == ["annotations/alice", "annotations/bob", "tally", "annotations/carol"])
        let gone = frames(lines, subscriptions: ["+annotations/alice", "+annotations/alice", "-annotations/alice"])
        #expect(gone.map(\.topic) == ["annotations/alice", "annotations/bob", "tally", "annotations/carol"])
        let both = frames(lines, subscriptions: ["+annotations/alice", "+annotations/alice", "-annotations/alice", "-annotations/alice"])
        #expect(both.map(\.topic) == ["annotations/", "tally", "annotations/carol"])
        // A shard's partition prefix narrows the viewport group; the annotations group stays.
        let shards = frames([("viewport/07/a", "v1"), ("viewport/09/b", "v2"), ("annotations/a", "a1"), ("annotations/b", "b1")],
                            subscriptions: ["+viewport/07/", "+annotations/", "+annot"])
        #expect(shards.map(\.topic) == ["viewport/07/a", "viewport/09/b", "annotations/"])
    }

    @Test func aGroupFrameIsOneSegmentAndItsSlash() {
        func isGroup(_ frame: String) -> Bool { Array(frame.utf8).withUnsafeBytes { TopicBatch.isGroup($0) } }
        #expect(isGroup("annotations/"))
        #expect(isGroup("viewport/"))
        #expect(!isGroup("annotations/alice"))
        #expect(!isGroup("annotations/a/"))
        #expect(!isGroup("viewport/07/"))
        #expect(!isGroup("tally"))
        #expect(!isGroup("/"))
        #expect(!isGroup(""))
    }
}
