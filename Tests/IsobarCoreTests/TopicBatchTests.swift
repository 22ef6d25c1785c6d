import Testing
@testable import IsobarCore

@Suite struct TopicBatchTests {
    typealias Frame = (topic: String, payload: String)

    /// Feeds (topic, line) pairs; `flushAfter` holds the indices after which the sender flushes.
    func frames(_ input: [(String, String)], capacity: Int = 64, flushAfter: Set<Int> = []) -> [Frame] {
        var batch = TopicBatch(capacity: capacity)
        var out: [Frame] = []
        let send: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) -> Void = { topic, payload in
            out.append((String(decoding: topic, as: UTF8.self), String(decoding: payload, as: UTF8.self)))
        }
        for (i, (topic, line)) in input.enumerated() {
            Array(topic.utf8).withUnsafeBytes { t in
                Array(line.utf8).withUnsafeBytes { batch.add(topic: t, line: $0, send: send) }
            }
            if flushAfter.contains(i) { batch.flush(send) }
        }
        batch.flush(send)
        #expect(batch.isEmpty)
        return out
    }

    @Test func consecutiveLinesOfOneTopicShareAFrameAndATopicChangeStartsANewOne() {
        let got = frames([("a", "1"), ("a", "2"), ("b", "3"), ("a", "4"), ("a", "5")])
        #expect(got.map(\.topic) == ["a", "b", "a"])
        #expect(got.map(\.payload) == ["1\n2", "3", "4\n5"])
    }

    @Test func aLoneLineIsExactlyAOneLinePayload() {
        let got = frames([("station", #"{"type":"station"}"#)])
        #expect(got.count == 1)
        #expect(got[0].payload == #"{"type":"station"}"#)
    }

    @Test func capacityBoundsAFrameAndALongerLineGoesAlone() {
        // 10-byte lines, capacity 32: three lines are 32 bytes with two separators.
        let line = String(repeating: "x", count: 10)
        let got = frames(Array(repeating: ("t", line), count: 7), capacity: 32)
        #expect(got.map { $0.payload.count } == [32, 32, 10])
        let long = String(repeating: "y", count: 50)
        let mixed = frames([("t", "a"), ("t", long), ("t", "b")], capacity: 32)
        #expect(mixed.map(\.payload) == ["a", long, "b"])
    }

    @Test func flushSendsWhatIsHeldAndNothingTwice() {
        let got = frames([("a", "1"), ("a", "2"), ("a", "3")], flushAfter: [0])
        #expect(got.map(\.payload) == ["1", "2\n3"])
    }

    @Test func splittingGivesBackEveryLineInOrder() {
        var rng = TestSupport.Random(seed: 7)
        for _ in 0..<200 {
            let count = Int(rng.next() % 20) + 1
            let input = (0..<count).map { i in
                (rng.next() % 3 == 0 ? "b" : "a", "{\"n\":\(i),\"pad\":\"" + String(repeating: "z", count: Int(rng.next() % 40)) + "\"}")
            }
            let got = frames(input, capacity: Int(rng.next() % 100) + 1)
            var lines: [(String, String)] = []
            for frame in got {
                for line in TopicBatch.lines(of: Array(frame.payload.utf8)) {
                    lines.append((frame.topic, String(decoding: line, as: UTF8.self)))
                }
            }
            #expect(lines.map(\.0) == input.map(\.0))
            #expect(lines.map(\.1) == input.map(\.1))
        }
    }

    @Test func emptyPiecesAreSkipped() {
        let lines = TopicBatch.lines(of: Array("\n{\"a\":1}\n\n{\"b\":2}\n".utf8)).map { String(decoding: $0, as: UTF8.self) }
        #expect(lines == [#"{"a":1}"#, #"{"b":2}"#])
        #expect(TopicBatch.lines(of: []).isEmpty)
    }
}
