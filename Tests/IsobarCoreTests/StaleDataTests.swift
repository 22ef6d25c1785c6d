import Synchronization
import Testing
@testable import IsobarCore

/// Stale data (issue 14): a station observed (or, without `observedAt`, fetched) longer ago than
/// `staleAfter` is marked `"stale":true` in the filter's `visible` and `selection` and in the
/// formatter's annotation and callout; the mark comes on its own as time passes, and goes with a
/// new fetch.
@Suite struct StaleDataTests {
    /// A wall clock the test moves by hand.
    final class Clock: Sendable {
        let time = Mutex(0.0)
        func set(_ value: Double) { time.withLock { $0 = value } }
        var now: @Sendable () -> Double { { [self] in time.withLock { $0 } } }
    }

    static func snapshot(_ id: String, fetchedAt: Double, temperature: Double, observedAt: Double? = nil) -> String {
        let details = observedAt.map { #","observedAt":\#(Int($0))"# } ?? ""
        return #"""
        {"type":"station","day":"today","snapshot":"\#(id)","seq":0,"id":"A","name":"Alpha","latitude":1,"longitude":1,"temperature":\#(temperature),"windSpeed":null,"windDirection":null,"precipitation":null}
        {"type":"station","day":"today","snapshot":"\#(id)","seq":1,"id":"B","name":"Beta","latitude":2,"longitude":2,"temperature":50,"windSpeed":null,"windDirection":null,"precipitation":null\#(details)}
        {"type":"snapshot","day":"today","snapshot":"\#(id)","count":2,"source":"feed","fetchedAt":\#(Int(fetchedAt)),"ageSeconds":0}
        """#
    }

    static let viewport = #"{"type":"viewport","client":"alice","center":{"latitude":1.5,"longitude":1.5},"span":{"latitudeDelta":10,"longitudeDelta":10}}"#

    static func run(_ engine: FilterEngine, _ text: String, at time: Double) -> [String] {
        var out = JSONWriter()
        for line in text.split(separator: "\n") {
            Array(line.utf8).withUnsafeBytes { engine.handle(line: $0, now: time, into: &out) }
        }
        return String(decoding: out.bytes, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    static func tick(_ engine: FilterEngine, at time: Double) -> [String] {
        var out = JSONWriter()
        engine.tick(now: time, into: &out)
        return String(decoding: out.bytes, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    static func format(_ lines: [String]) -> [String] {
        let engine = FormatEngine()
        var out = JSONWriter()
        for line in lines { Array(line.utf8).withUnsafeBytes { engine.handle(line: $0, into: &out) } }
        return String(decoding: out.bytes, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    /// A filter marking data older than an hour, on a clock at `time`.
    static func engine(at time: Double) -> (FilterEngine, Clock) {
        let clock = Clock()
        clock.set(time)
        var options = FilterOptions()
        options.staleAfter = 3_600
        return (FilterEngine(options: options, wallClock: clock.now), clock)
    }

    @Test func aStationTurnsStaleWithTimeAndFreshAfterANewFetch() throws {
        let (engine, clock) = Self.engine(at: 10_000)
        _ = Self.run(engine, Self.snapshot("today-1", fetchedAt: 9_000, temperature: 40), at: 1)
        let first = Self.run(engine, Self.viewport, at: 2)
        #expect(first == [#"{"type":"visible","client":"alice","version":1,"full":true,"day":"today","snapshot":"today-1","source":"feed","fetchedAt":9000,"ageSeconds":0,"upsert":[{"id":"A","name":"Alpha","latitude":1,"longitude":1,"temperature":40,"windSpeed":null,"windDirection":null,"precipitation":null},{"id":"B","name":"Beta","latitude":2,"longitude":2,"temperature":50,"windSpeed":null,"windDirection":null,"precipitation":null}],"remove":[]}"#])
        #expect(Self.tick(engine, at: 3).isEmpty)  // counted: nothing stale yet
        // An hour after the fetch: both stations are sent again, marked, without any input.
        clock.set(12_601)
        let aged = Self.tick(engine, at: 4)
        #expect(aged == [#"{"type":"visible","client":"alice","version":2,"full":false,"day":"today","snapshot":"today-1","source":"feed","fetchedAt":9000,"ageSeconds":0,"upsert":[{"id":"A","name":"Alpha","latitude":1,"longitude":1,"temperature":40,"windSpeed":null,"windDirection":null,"precipitation":null,"stale":true},{"id":"B","name":"Beta","latitude":2,"longitude":2,"temperature":50,"windSpeed":null,"windDirection":null,"precipitation":null,"stale":true}],"remove":[]}"#])
        #expect(engine.staleCount(.today) == 2)
        #expect(Self.format(aged) == [#"{"type":"annotations","client":"alice","version":2,"full":false,"day":"today","field":"temperature","units":"imperial","windUnit":"mph","locale":"en","snapshot":"today-1","source":"feed","fetchedAt":9000,"ageSeconds":0,"upsert":[{"id":"A","coordinate":{"latitude":1,"longitude":1},"title":"40°","subtitle":"Alpha","value":40,"stale":true},{"id":"B","coordinate":{"latitude":2,"longitude":2},"title":"50°","subtitle":"Beta","value":50,"stale":true}],"remove":[]}"#])
        #expect(Self.tick(engine, at: 5.5).isEmpty)  // nothing changed since
        // A new fetch: fresh again (A's temperature changed too).
        let fresh = Self.run(engine, Self.snapshot("today-2", fetchedAt: 12_650, temperature: 41), at: 6)
        #expect(fresh == [#"{"type":"visible","client":"alice","version":3,"full":false,"day":"today","snapshot":"today-2","source":"feed","fetchedAt":12650,"ageSeconds":0,"upsert":[{"id":"A","name":"Alpha","latitude":1,"longitude":1,"temperature":41,"windSpeed":null,"windDirection":null,"precipitation":null},{"id":"B","name":"Beta","latitude":2,"longitude":2,"temperature":50,"windSpeed":null,"windDirection":null,"precipitation":null}],"remove":[]}"#])
        #expect(engine.staleCount(.today) == 0)
    }

    @Test func anObservationTimeOverridesTheFetchTimeAndMarksTheCallout() throws {
        let (engine, _) = Self.engine(at: 20_000)
        // Fetched just now, but B was observed two hours ago.
        _ = Self.run(engine, Self.snapshot("today-1", fetchedAt: 19_990, temperature: 40, observedAt: 12_800), at: 1)
        let shown = Self.run(engine, Self.viewport, at: 2)
        #expect(shown.count == 1 && shown[0].contains(#""precipitation":null},{"id":"B""#) && shown[0].contains(#""observedAt""#) == false)
        #expect(shown[0].hasSuffix(#""precipitation":null,"stale":true}],"remove":[]}"#))
        #expect(engine.staleCount(.today) == 1)
        let selected = Self.run(engine, #"{"type":"select","client":"alice","id":"B"}"#, at: 3)
        #expect(selected == [#"{"type":"selection","client":"alice","id":"B","day":"today","snapshot":"today-1","source":"feed","fetchedAt":19990,"ageSeconds":0,"reason":"selected","station":{"id":"B","name":"Beta","latitude":2,"longitude":2,"temperature":50,"windSpeed":null,"windDirection":null,"precipitation":null,"observedAt":12800,"stale":true}}"#])
        let callout = Self.format(selected)
        #expect(callout.count == 1 && callout[0].hasSuffix(#""value":"2.0000° N, 2.0000° E","key":"coordinates","latitude":2,"longitude":2}],"stale":true,"snapshot":"today-1","source":"feed","fetchedAt":19990,"ageSeconds":0}"#))
    }

    @Test func withoutStaleAfterNothingIsMarked() throws {
        let clock = Clock()
        clock.set(1e9)
        let engine = FilterEngine(wallClock: clock.now)
        _ = Self.run(engine, Self.snapshot("today-1", fetchedAt: 1, temperature: 40), at: 1)
        #expect(!Self.run(engine, Self.viewport, at: 2)[0].contains("stale"))
        #expect(Self.tick(engine, at: 3).isEmpty)
    }

    @Test func theTerminalMapDimsStaleStationsAndCountsThem() throws {
        var set = AnnotationSet()
        _ = try set.apply(JSONObject(parsing: #"{"type":"annotations","client":"a","version":1,"full":true,"upsert":[{"id":"A","coordinate":{"latitude":0,"longitude":-6},"title":"40°","stale":true},{"id":"B","coordinate":{"latitude":0,"longitude":6},"title":"50°"}],"remove":[]}"#))
        #expect(set.staleCount == 1)
        let region = try Region(parsing: "0,0,2,16")
        let items = Array(set.items.values)
        #expect(TextMap.render(items, region: region, width: 17, height: 3, dimStale: true)[1] == "  \u{1B}[2m40°\u{1B}[22m   +     50°")
        #expect(TextMap.render(items, region: region, width: 17, height: 3)[1] == "  40°   +     50°")
    }
}
