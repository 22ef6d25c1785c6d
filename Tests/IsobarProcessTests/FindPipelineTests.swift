import Foundation
import Testing
@testable import IsobarTestSupport

/// `nearest` and `search` answered by the stages alone in a shell pipe (`fetch | filter | format`).
@Suite(.serialized, .processSlot) struct FindPipelineTests {
    @Test func fetchFilterFormatAnswersNearestAndSearch() async throws {
        let f = PipelineTests.fixtures.path
        let requests = [
            #"{"type":"nearest","client":"alice","latitude":43.40332,"longitude":-98.82952}"#,
            #"{"type":"nearest","client":"alice","latitude":43.5,"longitude":-98.8,"units":"metric","locale":"sk"}"#,
            #"{"type":"search","client":"alice","query":"platte","limit":3}"#,
            #"{"type":"search","client":"alice","query":"k1d3"}"#,
            #"{"type":"search","client":"alice","query":""}"#,
        ].map { "echo '\($0)'" }.joined(separator: "; ")
        let script = #"( $ISOBAR fetch --once --today \#(f)/today.json --tomorrow \#(f)/tomorrow.json; \#(requests) ) | $ISOBAR filter 2>/dev/null | $ISOBAR format"#
        let lines = try await PipelineTests().pipeline(script).lines
        let places = lines.filter { $0["type"] as? String == "place" }
        #expect(places.count == 2)
        #expect(places.first?["id"] as? String == "K1D3")
        #expect(places.first?["distanceKm"] as? Double == 0)
        #expect(places.first?["title"] as? String == "PLATTE")
        #expect((places.last?["subtitle"] as? String)?.hasSuffix("· Dnes") == true)
        let results = lines.filter { $0["type"] as? String == "results" }
        #expect(results.count == 2)
        let hits = results.first?["hits"] as? [[String: Any]] ?? []
        #expect(hits.first?["id"] as? String == "K1D3")
        #expect(hits.first?["match"] as? String == "prefix")
        #expect(hits.first?["title"] as? String == "46°")
        let byID = (results.last?["hits"] as? [[String: Any]])?.first
        #expect(byID?["id"] as? String == "K1D3" && byID?["match"] as? String == "id")
        let errors = lines.filter { $0["type"] as? String == "error" }
        #expect(errors.count == 1)
        #expect(errors.first?["stage"] as? String == "filter")
    }
}
