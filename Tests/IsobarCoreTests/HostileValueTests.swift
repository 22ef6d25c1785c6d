import Testing
@testable import IsobarCore

/// Values no feed should send but a broken or hostile publisher can: the stages stay up and
/// every id stays one annotation.
@Suite struct HostileValueTests {
    @Test(arguments: ["temperature", "windSpeed"])
    func hugeValuesAreFormattedNotACrash(_ field: String) {
        let line = #"{"type":"visible","client":"a","version":1,"full":true,"field":"\#(field == "windSpeed" ? "wind" : "temperature")","upsert":[{"id":"X","name":"X","latitude":1,"longitude":2,"temperature":1e300,"windSpeed":1e300,"windDirection":90,"precipitation":1}],"remove":[]}"#
        var writer = JSONWriter()
        TestSupport.withLine(line) { FormatEngine().handle(line: $0, into: &writer) }
        let out = TestSupport.objects(writer)
        #expect(out.map { $0.str("type") } == ["annotations"])
        #expect(out.first?.objects("upsert").first?.str("title")?.contains("e+300") == true)
    }

    @Test func aSnapshotThatRepeatsAnIdKeepsTheFirstAndSaysSo() throws {
        var stations = Array(try TestSupport.onx(.today).prefix(3))
        var twin = stations[0]
        twin.coordinate = Coordinate(latitude: -40, longitude: 100)  // far away
        stations.append(twin)
        let engine = FilterEngine()
        let out = FilterEngineTests().feed(engine, TestSupport.snapshotLines(day: .today, stations: stations))
        let errors = out.filter { $0.str("type") == "error" }
        #expect(errors.count == 1)
        #expect(errors.first?.str("message")?.contains(#"repeats 1 station id(s) (first "\#(stations[0].id)")"#) == true)
        let kept = engine.snapshot(for: .today)?.stations ?? []
        #expect(kept.map(\.id).sorted() == stations.prefix(3).map(\.id).sorted())
        #expect(kept.first { $0.id == stations[0].id }?.coordinate == stations[0].coordinate)
        // A whole-world view lists the id once.
        let all = FilterEngineTests().feed(engine, FilterEngineTests().viewport("c", 0, 0, 180, 360))
        #expect(all.first?.objects("upsert").map { $0.str("id") } .count == 3)
    }

    @Test func anErrorAboutAClientsMessageNamesTheClient() {
        var writer = JSONWriter()
        let engine = FilterEngine()
        TestSupport.withLine(#"{"type":"viewport","client":"alice","center":{"latitude":95,"longitude":0},"span":{"latitudeDelta":1,"longitudeDelta":1}}"#) {
            engine.handle(line: $0, now: 0, into: &writer)
        }
        TestSupport.withLine(#"{"type":"select","id":"K1D3"}"#) { engine.handle(line: $0, now: 0, into: &writer) }
        let out = TestSupport.objects(writer)
        #expect(out.map { $0.str("type") } == ["error", "error"])
        #expect(out.first?.str("client") == "alice")
        #expect(out.first.map { Topic.derive(from: $0) } == "error/alice")
        #expect(out.last?.field("client") == nil)  // no client named: no client told
    }
}
