import IsobarCore
import Testing

@Suite struct JSONLeadingNumbersTests {
    static let annotations = #"{"type":"annotations","client":"alice","version":17,"full":false,"day":"today","snapshot":"today-c9","ageSeconds":12.5,"upsert":[{"id":"K1D3","title":"7 mph"}],"remove":["X"]}"#

    @Test func readsTheNumbersAndAgreesWithAWholeParse() throws {
        let bytes = Array(Self.annotations.utf8)
        #expect(JSONLeadingNumbers.read(bytes, ["version", "ageSeconds"]) == [17, 12.5])
        let whole = try JSONObject(storage: bytes)
        #expect(whole.field("version").flatMap(whole.number) == 17)
        #expect(whole.field("ageSeconds").flatMap(whole.number) == 12.5)
    }

    /// It stops once both keys were seen: what follows is not read (here it is not even JSON).
    @Test func stopsAtTheLastKeyItNeeds() {
        let cut = Array(#"{"version":3, "ageSeconds":0,"upsert":[{"#.utf8)
        #expect(JSONLeadingNumbers.read(cut, ["version", "ageSeconds"]) == [3, 0])
    }

    @Test func absentWrongKindEscapedAndMalformed() {
        #expect(JSONLeadingNumbers.read(Array(#"{"version":"3"}"#.utf8), ["version"]) == [nil])
        #expect(JSONLeadingNumbers.read(Array(#"{"vers\u0069on":3}"#.utf8), ["version"]) == [nil])
        #expect(JSONLeadingNumbers.read(Array(#"{"a":[1,{"version":2}],"version":-4e2}"#.utf8), ["version"]) == [-400])
        #expect(JSONLeadingNumbers.read(Array(#"{"version":1,"version":2}"#.utf8), ["version"]) == [1])
        #expect(JSONLeadingNumbers.read(Array(#"{"version":1,"version":2,"ageSeconds":3}"#.utf8), ["version", "ageSeconds"]) == [1, 3])
        #expect(JSONLeadingNumbers.read(Array(#"[{"version":1}]"#.utf8), ["version"]) == [nil])
        #expect(JSONLeadingNumbers.read(Array(#"{"a" 1,"version":1}"#.utf8), ["version"]) == [nil])
        #expect(JSONLeadingNumbers.read([], ["version"]) == [nil])
        #expect(JSONLeadingNumbers.read(Array(#"{"version":01}"#.utf8), ["version"]) == [nil])
    }

    /// Random flat objects: the same numbers as a whole parse, whatever the member order.
    @Test func randomObjectsMatchAWholeParse() throws {
        var random = TestSupport.Random(seed: 0x5eed)
        func next() -> UInt64 { random.next() }
        let names = ["version", "ageSeconds", "type", "upsert", "x"]
        for _ in 0..<2_000 {
            var used = Set<String>()
            var members: [String] = []
            for _ in 0..<Int(next() % 6) {
                let name = names[Int(next() % UInt64(names.count))]
                guard used.insert(name).inserted else { continue }
                let value: String
                switch next() % 4 {
                case 0: value = "\(Int(next() % 2_000) - 1_000)"
                case 1: value = "\(Double(next() % 100_000) / 100)"
                case 2: value = #"{"version":9,"list":[1,2,"]"]}"#
                default: value = #""a \"quoted\" }""#
                }
                members.append("\"\(name)\" : \(value)")
            }
            let text = "{ " + members.joined(separator: " , ") + " }"
            let bytes = Array(text.utf8)
            let whole = try JSONObject(storage: bytes)
            let expected = [whole.field("version").flatMap(whole.number), whole.field("ageSeconds").flatMap(whole.number)]
            #expect(JSONLeadingNumbers.read(bytes, ["version", "ageSeconds"]) == expected, "\(text)")
        }
    }
}
